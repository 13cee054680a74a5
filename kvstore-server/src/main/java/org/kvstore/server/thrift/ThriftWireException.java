package org.kvstore.server.thrift;

/**
 * Bytes on a Thrift connection that cannot be served (an unknown format, a frame or message over
 * the limit, nesting too deep); the connection is closed after it is logged.
 *
 * <p>Thread safety: immutable.
 */
public final class ThriftWireException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public ThriftWireException(String message) {
    super(message);
  }
}
