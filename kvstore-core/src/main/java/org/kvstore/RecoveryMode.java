package org.kvstore;

/**
 * How opening a store treats damage in the write-ahead log (docs/durability.md). A torn, zero-filled
 * or garbage tail of the newest segment, the normal result of a crash, is cut off in every mode
 * except {@link #STRICT}.
 */
public enum RecoveryMode {
  /** Default: stop at the first bad record; fail the open if valid records or newer state follow it. */
  POINT_IN_TIME,
  /** Any damage anywhere in the log fails the open. */
  STRICT,
  /** Skip bad records, report how many, and open with whatever is valid. */
  SALVAGE;

  /** Parses {@code point-in-time}, {@code strict} or {@code salvage}, case-insensitively. */
  public static RecoveryMode parse(String text) {
    for (RecoveryMode m : values()) {
      if (m.name().replace('_', '-').equalsIgnoreCase(text.trim().replace('_', '-'))) {
        return m;
      }
    }
    throw new InvalidArgumentException(
        "recovery mode", "'" + text + "' is not one of point-in-time, strict, salvage");
  }
}
