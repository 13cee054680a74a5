package org.kvstore.bplus.page;

/**
 * The type byte of a page (offset 4 of every page, docs/format/bplus.md section 2).
 * Persisted: DO NOT RENUMBER.
 *
 * <p>Thread safety: immutable.
 */
public enum PageType {
  /** A slot that was never written (all zero). */
  NONE(0),
  META(1),
  LEAF(2),
  BRANCH(3),
  OVERFLOW(4),
  PAGE_TABLE(5);

  private final int code;

  PageType(int code) {
    this.code = code;
  }

  public int code() {
    return code;
  }

  /** The type of {@code code}, or {@code null} when no type has it. */
  public static PageType of(int code) {
    for (PageType t : values()) {
      if (t.code == code) {
        return t;
      }
    }
    return null;
  }
}
