package org.kvstore.spi;

/**
 * One change of a batch: a put of {@code value} under {@code key}, or a removal when {@code value} is
 * {@code null}. The arrays belong to the store; engines must not modify them, and may keep them.
 *
 * <p>Thread safety: immutable by convention (the arrays are never modified after construction).
 */
public record Mutation(byte[] key, byte[] value) {

  public static Mutation put(byte[] key, byte[] value) {
    return new Mutation(key, value);
  }

  public static Mutation remove(byte[] key) {
    return new Mutation(key, null);
  }

  public boolean isRemove() {
    return value == null;
  }
}
