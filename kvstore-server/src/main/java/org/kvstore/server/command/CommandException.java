package org.kvstore.server.command;

import org.kvstore.KVStoreException;

/**
 * A command was refused: its arguments or the data it met do not allow it (not an integer, an
 * overflow, a syntax error, a wrong password). Not a fault of the server: the connection stays
 * usable and nothing is logged.
 *
 * <p>The message is in Redis' form, an error code word then the text ({@code ERR syntax error},
 * {@code WRONGPASS ...}), because Redis clients match it exactly; other front ends use
 * {@link #code()} and {@link #detail()}.
 *
 * <p>Thread safety: immutable.
 */
public final class CommandException extends KVStoreException {
  private static final long serialVersionUID = 1L;

  public static final String SYNTAX = "ERR syntax error";
  public static final String NOT_INTEGER = "ERR value is not an integer or out of range";

  public CommandException(String reply) {
    super(reply);
  }

  /** The reply text, e.g. {@code ERR syntax error}. */
  public String reply() {
    return getMessage();
  }

  /** The error code word, e.g. {@code ERR}, {@code WRONGPASS}, {@code EXECABORT}. */
  public String code() {
    String m = getMessage();
    int sp = m.indexOf(' ');
    return sp < 0 ? m : m.substring(0, sp);
  }

  /** The text after the code word, e.g. {@code syntax error}. */
  public String detail() {
    String m = getMessage();
    int sp = m.indexOf(' ');
    return sp < 0 ? "" : m.substring(sp + 1);
  }

  @Override
  public synchronized Throwable fillInStackTrace() {
    return this; // a reply, not a bug: no stack trace to collect
  }
}
