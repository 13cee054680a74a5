package org.kvstore;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.function.BiConsumer;
import org.kvstore.spi.Mutation;

/**
 * An ordered list of puts and removes applied atomically: after any crash either all of them are
 * there or none; a later mutation of the same key wins. Keys and values are copied when added, so
 * the caller may reuse its arrays; {@link #putOwned} hands them over instead.
 *
 * <p>Thread safety: confined to one thread until passed to {@code write}.
 */
public final class WriteBatch {
  private final List<Mutation> mutations = new ArrayList<>();
  private long bytes;

  public WriteBatch put(byte[] key, byte[] value) {
    if (key == null || value == null) {
      throw new InvalidArgumentException(key == null ? "key" : "value", "must not be null");
    }
    mutations.add(Mutation.put(key.clone(), value.clone()));
    bytes += key.length + value.length;
    return this;
  }

  /**
   * Adds a put of these very arrays, not copies: the batch, and then the store, take them over (the
   * store keeps them in its write buffer and caches). The caller must never modify them afterwards.
   * For arrays made for this write alone, such as a value a server decoded from a request: a
   * 500-byte value then costs no second 500-byte array, so young collections come less often.
   */
  public WriteBatch putOwned(byte[] key, byte[] value) {
    if (key == null || value == null) {
      throw new InvalidArgumentException(key == null ? "key" : "value", "must not be null");
    }
    mutations.add(Mutation.put(key, value));
    bytes += key.length + value.length;
    return this;
  }

  public WriteBatch put(String key, byte[] value) {
    return put(utf8(key), value);
  }

  public WriteBatch remove(byte[] key) {
    if (key == null) {
      throw new InvalidArgumentException("key", "must not be null");
    }
    mutations.add(Mutation.remove(key.clone()));
    bytes += key.length;
    return this;
  }

  public WriteBatch remove(String key) {
    return remove(utf8(key));
  }

  public int size() {
    return mutations.size();
  }

  public boolean isEmpty() {
    return mutations.isEmpty();
  }

  /** Sum of key and value lengths. */
  public long approximateBytes() {
    return bytes;
  }

  /**
   * Passes each mutation, in order, to {@code action}: a put as its key and value, a remove as its
   * key and {@code null}. The arrays are the batch's own: the action must not modify them.
   */
  public void forEach(BiConsumer<byte[], byte[]> action) {
    for (Mutation m : mutations) {
      action.accept(m.key(), m.value());
    }
  }

  /** The mutations, in order (a read-only view). */
  public List<Mutation> mutations() {
    return Collections.unmodifiableList(mutations);
  }

  static byte[] utf8(String s) {
    if (s == null) {
      throw new InvalidArgumentException("key", "must not be null");
    }
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
