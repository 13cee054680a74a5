package org.kvstore.server.command;

import org.kvstore.KVStoreException;

/**
 * A command failed with a Redis error reply: the message is the whole reply text, starting with the
 * error code ({@code ERR syntax error}, {@code WRONGPASS ...}). The connection stays usable.
 *
 * <p>Thread safety: immutable.
 */
public final class CommandException extends KVStoreException {
  private static final long serialVersionUID = 1L;

  static final String SYNTAX = "ERR syntax error";
  static final String NOT_INTEGER = "ERR value is not an integer or out of range";

  public CommandException(String reply) {
    super(reply);
  }

  /** The reply text, e.g. {@code ERR syntax error}. */
  public String reply() {
    return getMessage();
  }

  @Override
  public synchronized Throwable fillInStackTrace() {
    return this; // a reply, not a bug: no stack trace to collect
  }
}
