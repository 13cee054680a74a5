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

  private static final PageType[] BY_CODE = values();

  private final int code;

  PageType(int code) {
    this.code = code;
  }

  public int code() {
    return code;
  }

  /** The type of {@code code}, or {@code null} when no type has it. */
  public static PageType of(int code) {
    // Codes are 0..5 in declaration order (checked by PageFormatTest through round trips).
    return code >= 0 && code < BY_CODE.length && BY_CODE[code].code == code ? BY_CODE[code] : null;
  }
}
