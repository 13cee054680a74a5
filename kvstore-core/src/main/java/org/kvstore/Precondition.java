package org.kvstore;

/**
 * A condition a write checks against the key's current entry, atomically with the write: nothing
 * is written when it does not hold. Expired entries count as absent.
 *
 * <p>Thread safety: immutable.
 */
public final class Precondition {
  private enum Kind { NONE, ABSENT, PRESENT, VERSION }

  private static final Precondition NONE = new Precondition(Kind.NONE, 0);
  private static final Precondition ABSENT = new Precondition(Kind.ABSENT, 0);
  private static final Precondition PRESENT = new Precondition(Kind.PRESENT, 0);

  private final Kind kind;
  private final long version;

  private Precondition(Kind kind, long version) {
    this.kind = kind;
    this.version = version;
  }

  /** Always holds. */
  public static Precondition none() {
    return NONE;
  }

  /** Holds when the key is absent (Redis {@code NX}, HTTP {@code If-None-Match: *}). */
  public static Precondition absent() {
    return ABSENT;
  }

  /** Holds when the key is present (Redis {@code XX}). */
  public static Precondition present() {
    return PRESENT;
  }

  /**
   * Holds when the key is present with exactly this {@link Entry#version()} (HTTP {@code If-Match},
   * Thrift {@code ifVersion}).
   *
   * @throws InvalidArgumentException if {@code version} is negative
   */
  public static Precondition version(long version) {
    if (version < 0) {
      throw new InvalidArgumentException("version", "must be >= 0, was " + version);
    }
    return new Precondition(Kind.VERSION, version);
  }

  public boolean isNone() {
    return kind == Kind.NONE;
  }

  /** Whether the condition holds for {@code current} (null: absent or expired). */
  public boolean holds(Entry current) {
    return switch (kind) {
      case NONE -> true;
      case ABSENT -> current == null;
      case PRESENT -> current != null;
      case VERSION -> current != null && current.version() == version;
    };
  }

  @Override
  public String toString() {
    return switch (kind) {
      case NONE -> "none";
      case ABSENT -> "key absent";
      case PRESENT -> "key present";
      case VERSION -> "version " + version;
    };
  }
}
