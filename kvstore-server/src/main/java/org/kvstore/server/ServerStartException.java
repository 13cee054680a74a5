package org.kvstore.server;

import org.kvstore.KVStoreException;

/**
 * The server could not start: a port in use, an unusable data directory, a bad configuration. The
 * message is one line meant for the operator; {@code ServerMain} prints it and exits with status 1.
 *
 * <p>Thread safety: immutable.
 */
public final class ServerStartException extends KVStoreException {
  private static final long serialVersionUID = 1L;

  public ServerStartException(String message) {
    super(message);
  }

  public ServerStartException(String message, Throwable cause) {
    super(message, cause);
  }
}
