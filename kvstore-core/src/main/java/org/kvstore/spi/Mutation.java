package org.kvstore.spi;

import org.kvstore.Entry;

/**
 * One change of a batch: a put of {@code value} under {@code key}, expiring at {@code expiresAt}
 * (milliseconds since the epoch, {@link Entry#NO_EXPIRY} for never), or a removal when
 * {@code value} is {@code null}. The arrays belong to the store; engines must not modify them, and
 * may keep them. Its version is the log sequence number it is applied under.
 *
 * <p>Thread safety: immutable by convention (the arrays are never modified after construction).
 */
public record Mutation(byte[] key, byte[] value, long expiresAt) {

  public static Mutation put(byte[] key, byte[] value) {
    return new Mutation(key, value, Entry.NO_EXPIRY);
  }

  public static Mutation put(byte[] key, byte[] value, long expiresAt) {
    return new Mutation(key, value, expiresAt);
  }

  public static Mutation remove(byte[] key) {
    return new Mutation(key, null, Entry.NO_EXPIRY);
  }

  public boolean isRemove() {
    return value == null;
  }
}
