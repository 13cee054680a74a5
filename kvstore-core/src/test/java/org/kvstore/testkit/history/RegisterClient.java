package org.kvstore.testkit.history;

/**
 * One connection of a {@link RegisterWorkload} to the store under test.
 *
 * <p>Thread safety: confined to one workload thread.
 */
public interface RegisterClient extends AutoCloseable {

  /** Opens a client; called again after a client failed. */
  @FunctionalInterface
  interface Factory {
    RegisterClient open() throws Exception;
  }

  /**
   * Runs {@code command} and returns its result typed as {@link Command} says, including a
   * definite error reply such as {@link Operation.ErrorReply#NOT_AN_INTEGER}. Throws
   * {@link NotDoneException} when the operation certainly had no effect (it is then recorded as
   * failed), and any other exception when the outcome is unknown (timeout, lost connection,
   * unexpected reply: the operation is then indeterminate); either way this client is closed and
   * replaced.
   */
  Object execute(Command command, String key, String argument) throws Exception;

  @Override
  void close();
}
