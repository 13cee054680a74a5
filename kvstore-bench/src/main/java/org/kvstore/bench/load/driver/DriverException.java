package org.kvstore.bench.load.driver;

import java.nio.charset.StandardCharsets;
import org.kvstore.KVStoreException;

/** A request that failed, with the driver, the operation and the key. */
public final class DriverException extends KVStoreException {
  private static final long serialVersionUID = 1L;

  public DriverException(String driver, String op, byte[] key, Throwable cause) {
    super(driver + " " + op + (key == null ? "" : " " + new String(key, StandardCharsets.ISO_8859_1))
        + " failed: " + cause.getMessage(), cause);
  }

  public DriverException(String message, Throwable cause) {
    super(message, cause);
  }

  public DriverException(String message) {
    super(message);
  }
}
