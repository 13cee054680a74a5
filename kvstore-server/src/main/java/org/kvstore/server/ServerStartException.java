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

  /**
   * The failure to listen for {@code protocol} on {@code bind:port}: a port in use names the flag
   * that picks another; anything else carries its cause's message.
   */
  public static ServerStartException cannotListen(
      String protocol, String bind, int port, String flag, Throwable e) {
    String where = "cannot listen for " + protocol + " on " + bind + ":" + port;
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof java.net.BindException
          || (t.getMessage() != null && t.getMessage().contains("Address already in use"))) {
        return new ServerStartException(
            where + ": the port is in use (is another server running? pick another with " + flag + ")");
      }
    }
    return new ServerStartException(where + ": " + e.getMessage(), e);
  }
}
