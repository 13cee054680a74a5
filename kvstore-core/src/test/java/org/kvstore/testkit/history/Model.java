package org.kvstore.testkit.history;

/**
 * A sequential specification for {@link LinearizabilityChecker}: the state of one key and what
 * each operation does to it.
 *
 * <p>States must be immutable values with {@code equals} and {@code hashCode} (the checker caches
 * them) and never {@code null}.
 *
 * <p>Thread safety: implementations must be stateless or immutable.
 *
 * @param <S> the state of one key
 */
public interface Model<S> {
  /** The state of a key nobody has written. */
  S initialState();

  /**
   * The state after {@code op} runs alone in {@code state}, or {@code null} if {@code op}'s
   * recorded result is impossible in {@code state}. An indeterminate op ({@link Operation.Status#INFO})
   * has no result to check: it must return the state its effect leads to.
   */
  S step(S state, Operation op);
}
