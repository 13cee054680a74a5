package org.kvstore.lsm.key;

/**
 * What an internal entry says about its user key. Persisted in the low byte of every SSTable key
 * trailer (docs/format/sstable.md): DO NOT RENUMBER.
 *
 * <p>Thread safety: immutable.
 */
public enum ValueKind {
  /** The key was removed at this sequence number. */
  DELETE(0),
  /** The key was set to the entry's value at this sequence number. */
  PUT(1);

  private final int code;

  ValueKind(int code) {
    this.code = code;
  }

  public int code() {
    return code;
  }

  /** The kind with {@code code}, or {@code null} when the code is unknown (the caller reports corruption). */
  public static ValueKind fromCode(int code) {
    return switch (code) {
      case 0 -> DELETE;
      case 1 -> PUT;
      default -> null;
    };
  }
}
