package org.kvstore.server.command;

/**
 * The conditions of a SET ({@link StringCommands#set}): when it writes, and whether it returns the
 * value it replaces.
 *
 * @param condition when the value is written
 * @param returnOld whether the result carries the value before (Redis {@code SET ... GET})
 *
 * <p>Thread safety: immutable.
 */
public record SetOptions(Condition condition, boolean returnOld) {
  /** Writes unconditionally and returns nothing: the plain {@code SET key value}. */
  public static final SetOptions PLAIN = new SetOptions(Condition.ALWAYS, false);

  /** When a SET writes. */
  public enum Condition {
    ALWAYS,
    /** Only when the key is absent (Redis {@code NX}). */
    IF_ABSENT,
    /** Only when the key exists (Redis {@code XX}). */
    IF_PRESENT
  }

  public SetOptions {
    if (condition == null) {
      throw new IllegalArgumentException("condition must not be null");
    }
  }

  /** Whether this is the plain, unconditional SET, which goes through the {@link PutWriter}. */
  public boolean isPlain() {
    return condition == Condition.ALWAYS && !returnOld;
  }
}
