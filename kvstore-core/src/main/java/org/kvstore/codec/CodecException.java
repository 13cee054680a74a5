package org.kvstore.codec;

/**
 * Encoded input that cannot be decoded: a value that runs past its limit, is longer than its type
 * allows, or is out of the range the caller asked for. It names the offset of the value in the
 * caller's array; the caller adds the file (a format's reader turns it into a
 * {@link org.kvstore.CorruptionException}).
 *
 * <p>It extends {@link IllegalArgumentException} so that readers that treat any malformed field as
 * corruption catch it with the rest.
 *
 * <p>Thread safety: immutable.
 */
public final class CodecException extends IllegalArgumentException {
  private static final long serialVersionUID = 1L;

  private final int offset;

  public CodecException(int offset, String detail) {
    super(detail + " at offset " + offset);
    this.offset = offset;
  }

  /** The offset, in the decoded array, where the bad value starts. */
  public int offset() {
    return offset;
  }
}
