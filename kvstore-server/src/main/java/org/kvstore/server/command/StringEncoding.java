package org.kvstore.server.command;

/**
 * What Redis' {@code OBJECT ENCODING} and {@code OBJECT REFCOUNT} answer for a string value, told
 * from its bytes the way Redis 7.2 encodes a value it stores with {@code SET}
 * ({@code tryObjectEncoding} in object.c): a strict 64-bit integer ({@link RedisNumbers#isLong}:
 * at most 20 bytes, no '+', no leading zero, no "-0") is {@code int}; else up to
 * {@value #EMBSTR_MAX_BYTES} bytes is {@code embstr}; else {@code raw}. Integers from 0 to
 * {@value #SHARED_INTEGERS} - 1 are Redis' shared objects (with the default {@code maxmemory 0}),
 * whose reference count reads {@value #SHARED_REFCOUNT}.
 *
 * <p>The store keeps bytes, not Redis objects: a value that Redis would hold as {@code raw} because
 * of how it was written ({@code APPEND} to an existing key, {@code SETRANGE}, {@code SETBIT}) is
 * reported by its bytes, as {@code SET} of the same bytes would make it (docs/server.md).
 *
 * <p>Thread safety: stateless.
 */
public final class StringEncoding {
  /** Redis' {@code OBJ_ENCODING_EMBSTR_SIZE_LIMIT}. */
  static final int EMBSTR_MAX_BYTES = 44;
  /** Redis' {@code OBJ_SHARED_INTEGERS}. */
  static final int SHARED_INTEGERS = 10_000;
  /** Redis' {@code OBJ_SHARED_REFCOUNT} ({@code INT_MAX}). */
  static final long SHARED_REFCOUNT = Integer.MAX_VALUE;

  private StringEncoding() {}

  /** {@code int}, {@code embstr} or {@code raw}. */
  public static String of(byte[] value) {
    if (RedisNumbers.isLong(value)) {
      return "int";
    }
    return value.length <= EMBSTR_MAX_BYTES ? "embstr" : "raw";
  }

  /** The reference count Redis reports for {@code value}: shared small integers, else 1. */
  public static long refCount(byte[] value) {
    if (RedisNumbers.isLong(value)) {
      long v = RedisNumbers.parseLong(value);
      if (v >= 0 && v < SHARED_INTEGERS) {
        return SHARED_REFCOUNT;
      }
    }
    return 1;
  }
}
