package org.kvstore;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BiConsumer;
import org.kvstore.spi.Mutation;

/**
 * An ordered list of puts and removes applied atomically: after any crash either all of them are
 * there or none; a later mutation of the same key wins. Keys and values are copied when added, so
 * the caller may reuse its arrays; {@link #putOwned} hands them over instead.
 *
 * <p>A mutation may carry {@link PutOptions} (an expiry, keep-expiry, a {@link Precondition}); a
 * remove may carry a precondition. Preconditions are checked against the entries as they were
 * before the batch, all together with the write: when one fails, the write throws
 * {@link PreconditionFailedException} and nothing of the batch is written. Keep-expiry keeps the
 * expiry of the entry before the batch, or of an earlier put of the same key in the batch.
 *
 * <p>Thread safety: confined to one thread until passed to {@code write}.
 */
public final class WriteBatch {
  private final List<Mutation> mutations = new ArrayList<>();
  /** The options of each mutation, index for index; null while every mutation is plain. */
  private List<PutOptions> options;
  private boolean readsCurrent;
  private long bytes;

  public WriteBatch put(byte[] key, byte[] value) {
    if (key == null || value == null) {
      throw new InvalidArgumentException(key == null ? "key" : "value", "must not be null");
    }
    mutations.add(Mutation.put(key.clone(), value.clone()));
    bytes += key.length + value.length;
    return alignOptions();
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
    return alignOptions();
  }

  public WriteBatch put(String key, byte[] value) {
    return put(utf8(key), value);
  }

  /** Adds a put with {@code options} (expiry, precondition). */
  public WriteBatch put(byte[] key, byte[] value, PutOptions options) {
    checkOptions(options);
    put(key, value);
    return withOptions(options);
  }

  /** {@link #putOwned(byte[], byte[])} with {@code options}. */
  public WriteBatch putOwned(byte[] key, byte[] value, PutOptions options) {
    checkOptions(options);
    putOwned(key, value);
    return withOptions(options);
  }

  /** Adds a removal that happens only if {@code precondition} holds (else the batch fails). */
  public WriteBatch remove(byte[] key, Precondition precondition) {
    if (precondition == null) {
      throw new InvalidArgumentException("precondition", "must not be null");
    }
    remove(key);
    return withOptions(PutOptions.defaults().when(precondition));
  }

  public WriteBatch remove(byte[] key) {
    if (key == null) {
      throw new InvalidArgumentException("key", "must not be null");
    }
    mutations.add(Mutation.remove(key.clone()));
    bytes += key.length;
    return alignOptions();
  }

  public WriteBatch remove(String key) {
    return remove(utf8(key));
  }

  private static void checkOptions(PutOptions options) {
    if (options == null) {
      throw new InvalidArgumentException("options", "must not be null");
    }
  }

  /** Gives a mutation just added the default options, once some mutation has options. */
  private WriteBatch alignOptions() {
    if (options != null) {
      options.add(PutOptions.defaults());
    }
    return this;
  }

  /** Sets the options of the mutation just added. */
  private WriteBatch withOptions(PutOptions o) {
    if (o == PutOptions.defaults()) {
      return this;
    }
    if (options == null) {
      options = new ArrayList<>(mutations.size());
      for (int i = 0; i < mutations.size() - 1; i++) {
        options.add(PutOptions.defaults());
      }
    } else {
      options.remove(options.size() - 1);
    }
    options.add(o);
    readsCurrent |= o.readsCurrent();
    return this;
  }

  /** The options of mutation {@code index} ({@link PutOptions#defaults()} for a plain one). */
  public PutOptions options(int index) {
    return options == null ? PutOptions.defaults() : options.get(index);
  }

  /** Whether any mutation has options other than the defaults. */
  public boolean hasOptions() {
    return options != null;
  }

  /** Whether writing the batch needs the current entries of its keys (preconditions, keep-expiry). */
  public boolean readsCurrent() {
    return readsCurrent;
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

  /** The entries of keys as they were before a batch, for {@link #resolve}. */
  @FunctionalInterface
  public interface CurrentEntries {
    /** The entry of {@code key} before the batch, or {@code null} when absent or expired. */
    Entry get(byte[] key) throws IOException;
  }

  /**
   * The batch's mutations as an engine or a replication log takes them: preconditions checked
   * against the entries before the batch ({@code current}, read only for mutations whose options
   * read it; may be null when {@link #readsCurrent()} is false), times to live and keep-expiry
   * resolved to absolute times at {@code nowMillis}.
   *
   * @param table the table's qualified name, for the error
   * @throws PreconditionFailedException naming the key when a precondition fails
   * @throws IOException when reading a current entry fails
   */
  public List<Mutation> resolve(String table, long nowMillis, CurrentEntries current) throws IOException {
    List<Mutation> out = new ArrayList<>(mutations.size());
    Map<ByteBuffer, Entry> writtenHere = current == null ? null : new HashMap<>();
    for (int i = 0; i < mutations.size(); i++) {
      Mutation m = mutations.get(i);
      PutOptions o = options(i);
      if (o == PutOptions.defaults()) {
        out.add(m);
      } else {
        Entry before = null;
        if (current != null && o.readsCurrent()) {
          before = current.get(m.key());
          if (!o.precondition().holds(before)) {
            throw new PreconditionFailedException(table, m.key(), o.precondition(), before);
          }
          ByteBuffer k = ByteBuffer.wrap(m.key());
          if (writtenHere.containsKey(k)) {
            before = writtenHere.get(k); // keep-expiry follows an earlier put of the batch
          }
        }
        out.add(m.isRemove() ? m : Mutation.put(m.key(), m.value(), o.resolveExpiry(nowMillis, before)));
      }
      if (writtenHere != null) {
        Mutation last = out.get(out.size() - 1);
        writtenHere.put(ByteBuffer.wrap(last.key()),
            last.isRemove() ? null : new Entry(last.value(), 0, last.expiresAt()));
      }
    }
    return out;
  }

  static byte[] utf8(String s) {
    if (s == null) {
      throw new InvalidArgumentException("key", "must not be null");
    }
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
