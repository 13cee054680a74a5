package org.kvstore.testkit.history;

/**
 * The single-key operations a {@link RegisterModel} knows, as Redis names them. What each one's
 * result is in an {@link Operation}:
 *
 * <ul>
 *   <li>{@code GET}: the value, a {@code String}, or {@code null} for a missing key.
 *   <li>{@code SET}, {@code SET_NX} ({@code SET k v NX}), {@code SET_XX} ({@code SET k v XX}): a
 *       {@code Boolean}, whether the value was set ({@code +OK}) or not (a null reply).
 *   <li>{@code DEL}: a {@code Long}, the number of keys removed (0 or 1).
 *   <li>{@code INCR}: a {@code Long}, the new value, or {@link Operation.ErrorReply#NOT_AN_INTEGER}.
 *   <li>{@code APPEND}: a {@code Long}, the length in bytes of the value after the append.
 * </ul>
 *
 * <p>Thread safety: immutable.
 */
public enum Command {
  GET,
  SET,
  SET_NX,
  SET_XX,
  DEL,
  INCR,
  APPEND;

  /** Whether the command takes an argument (the value to set or append). */
  public boolean hasArgument() {
    return this == SET || this == SET_NX || this == SET_XX || this == APPEND;
  }

  /** Whether the command can change the value (so an indeterminate one matters). */
  public boolean mayWrite() {
    return this != GET;
  }
}
