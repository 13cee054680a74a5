package org.kvstore.server.warmup;

import org.kvstore.KVStoreException;

/**
 * The warm-up could not exercise the scratch server: an unexpected reply, a lost connection, or a
 * scratch directory that could not be made. {@link ServerWarmup#run} logs it; the server starts anyway.
 */
public final class WarmupException extends KVStoreException {
  private static final long serialVersionUID = 1L;

  public WarmupException(String message) {
    super(message);
  }

  public WarmupException(String message, Throwable cause) {
    super(message, cause);
  }
}
