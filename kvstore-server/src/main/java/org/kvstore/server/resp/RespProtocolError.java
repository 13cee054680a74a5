package org.kvstore.server.resp;

/**
 * The decoder met bytes that are not valid RESP. It is delivered in order after the commands that
 * preceded the bad bytes: the handler answers {@code -ERR Protocol error: <message>} once those
 * commands are answered, then closes the connection (Redis does the same).
 *
 * @param message the text after {@code Protocol error: }, for example {@code invalid bulk length}
 *
 * <p>Thread safety: immutable.
 */
public record RespProtocolError(String message) {}
