package org.kvstore.server.command;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Function;
import org.kvstore.Cursor;
import org.kvstore.InvalidArgumentException;
import org.kvstore.Table;
import org.kvstore.TableInfo;
import org.kvstore.WriteBatch;

/**
 * The table as the commands of one {@code EXEC} see it: the values of the transaction's keys, read
 * once under their locks, with the transaction's own writes applied as its commands run. Nothing
 * reaches the store until {@link #changes()} is written, as one batch, by the {@link Table#update}
 * that holds the locks; so the transaction is atomic, also across crashes, and isolated from other
 * writers of its keys.
 *
 * <p>Point reads and writes reach only the keys given at construction: the commands of a
 * transaction name their keys (the RESP command table's key positions), and those that write other keys are
 * refused when queued (flagged no-multi); reaching any other key is a bug in a
 * command's key positions and fails with {@link IllegalStateException}. A scan (KEYS, SCAN, DBSIZE,
 * RANDOMKEY, KV.RANGE in a transaction) merges the table's entries with the transaction's writes so
 * far: it sees its own transaction, and the rest of the table as a scan outside one would (those
 * keys are not locked).
 *
 * <p>Thread safety: confined to the thread running the {@code EXEC}.
 */
public final class TransactionView implements Table {
  /** A key's current value within the transaction, and whether the transaction wrote it. */
  private static final class Slot {
    final byte[] key;
    byte[] value;
    boolean written;

    Slot(byte[] key, byte[] value) {
      this.key = key;
      this.value = value;
    }
  }

  private final Table base;
  private final Map<ByteBuffer, Slot> slots = new LinkedHashMap<>();

  /** {@code values[i]} is the current value of {@code keys.get(i)} (null: absent). */
  public TransactionView(Table base, List<byte[]> keys, byte[][] values) {
    this.base = base;
    for (int i = 0; i < keys.size(); i++) {
      slots.putIfAbsent(ByteBuffer.wrap(keys.get(i)), new Slot(keys.get(i), values[i]));
    }
  }

  private Slot slot(byte[] key) {
    Slot s = slots.get(ByteBuffer.wrap(key));
    if (s == null) {
      throw new IllegalStateException(
          "a command of the transaction reached a key it does not name in its key arguments");
    }
    return s;
  }

  /** The transaction's writes as one batch, in the order its keys were named; empty if none. */
  public WriteBatch changes() {
    WriteBatch b = new WriteBatch();
    for (Slot s : slots.values()) {
      if (s.written) {
        if (s.value == null) {
          b.remove(s.key);
        } else {
          b.put(s.key, s.value);
        }
      }
    }
    return b;
  }

  @Override
  public String database() {
    return base.database();
  }

  @Override
  public String name() {
    return base.name();
  }

  @Override
  public void put(byte[] key, byte[] value) {
    if (key == null || value == null) {
      throw new InvalidArgumentException(key == null ? "key" : "value", "must not be null");
    }
    Slot s = slot(key);
    s.value = value.clone();
    s.written = true;
  }

  @Override
  public byte[] get(byte[] key) {
    byte[] v = slot(key).value;
    return v == null ? null : v.clone();
  }

  @Override
  public byte[] getReadOnly(byte[] key) {
    return slot(key).value;
  }

  @Override
  public boolean remove(byte[] key) {
    Slot s = slot(key);
    if (s.value == null) {
      return false;
    }
    s.value = null;
    s.written = true;
    return true;
  }

  /** Applies {@code batch}; every key is checked before any is changed. */
  @Override
  public void write(WriteBatch batch) {
    batch.forEach((key, value) -> slot(key));
    batch.forEach((key, value) -> {
      Slot s = slot(key);
      s.value = value;
      s.written = true;
    });
  }

  /** As the store's: the batch may only touch {@code keys}; the values passed are not copies. */
  @Override
  public void update(List<byte[]> keys, Function<byte[][], WriteBatch> update) {
    byte[][] current = new byte[keys.size()][];
    for (int i = 0; i < current.length; i++) {
      current[i] = slot(keys.get(i)).value;
    }
    WriteBatch batch = update.apply(current);
    if (batch == null || batch.isEmpty()) {
      return;
    }
    Set<ByteBuffer> named = new HashSet<>();
    for (byte[] k : keys) {
      named.add(ByteBuffer.wrap(k));
    }
    batch.forEach((key, value) -> {
      if (!named.contains(ByteBuffer.wrap(key))) {
        throw new InvalidArgumentException("update", "the batch writes a key which is not among the keys read");
      }
    });
    write(batch);
  }

  @Override
  public org.kvstore.Entry getEntry(byte[] key) {
    throw new UnsupportedOperationException("expiry inside MULTI is not wired yet");
  }

  @Override
  public org.kvstore.WriteResult put(byte[] key, byte[] value, org.kvstore.PutOptions options) {
    throw new UnsupportedOperationException("expiry inside MULTI is not wired yet");
  }

  @Override
  public org.kvstore.WriteResult remove(byte[] key, org.kvstore.Precondition precondition) {
    throw new UnsupportedOperationException("expiry inside MULTI is not wired yet");
  }

  @Override
  public boolean expireAt(byte[] key, long epochMillis) {
    throw new UnsupportedOperationException("expiry inside MULTI is not wired yet");
  }

  @Override
  public boolean persist(byte[] key) {
    throw new UnsupportedOperationException("expiry inside MULTI is not wired yet");
  }

  @Override
  public void updateEntries(List<byte[]> keys, Function<org.kvstore.Entry[], WriteBatch> update) {
    throw new UnsupportedOperationException("expiry inside MULTI is not wired yet");
  }

  /** The table's entries in the range with the transaction's writes so far applied over them. */
  @Override
  public Cursor scan(byte[] fromInclusive, byte[] toExclusive, int limit) {
    TreeMap<byte[], byte[]> written = new TreeMap<>(Arrays::compareUnsigned);
    for (Slot s : slots.values()) {
      if (s.written && (fromInclusive == null || Arrays.compareUnsigned(s.key, fromInclusive) >= 0)
          && (toExclusive == null || Arrays.compareUnsigned(s.key, toExclusive) < 0)) {
        written.put(s.key, s.value);
      }
    }
    return new MergedCursor(base.scan(fromInclusive, toExclusive, 0), written, limit);
  }

  /** The table the transaction runs on. */
  public Table base() {
    return base;
  }

  /**
   * A base cursor with written entries merged in (a written key replaces the base's entry, a
   * removed one hides it), at most {@code limit} entries ({@code <= 0}: all). Thread safety: confined.
   */
  private static final class MergedCursor implements Cursor {
    private final Cursor base;
    private final Iterator<Map.Entry<byte[], byte[]>> written;
    private final int limit;
    private int returned;
    private byte[] baseKey;
    private byte[] baseValue;
    private boolean baseDone;
    private Map.Entry<byte[], byte[]> pending;
    private long baseVersion;
    private long baseExpiresAt;
    private byte[] key;
    private byte[] value;
    private long version;
    private long expiresAt;

    MergedCursor(Cursor base, TreeMap<byte[], byte[]> written, int limit) {
      this.base = base;
      this.written = written.entrySet().iterator();
      this.limit = limit;
      this.pending = this.written.hasNext() ? this.written.next() : null;
    }

    @Override
    public boolean next() {
      while (limit <= 0 || returned < limit) {
        if (baseKey == null && !baseDone) {
          if (base.next()) {
            baseKey = base.key();
            baseValue = base.value();
            baseVersion = base.version();
            baseExpiresAt = base.expiresAt();
          } else {
            baseDone = true;
          }
        }
        int c = baseKey == null ? 1 : pending == null ? -1 : Arrays.compareUnsigned(baseKey, pending.getKey());
        if (baseKey == null && pending == null) {
          return false;
        }
        if (c < 0) {
          key = baseKey;
          value = baseValue;
          version = baseVersion;
          expiresAt = baseExpiresAt;
          baseKey = null;
        } else {
          if (c == 0) {
            baseKey = null; // the transaction's write replaces the stored entry
          }
          key = pending.getKey();
          value = pending.getValue();
          pending = written.hasNext() ? written.next() : null;
          if (value == null) {
            continue; // removed by the transaction
          }
          key = key.clone();
          value = value.clone();
          version = 0; // written by the transaction, not yet committed: no version yet
          expiresAt = 0;
        }
        returned++;
        return true;
      }
      return false;
    }

    @Override
    public byte[] key() {
      return key;
    }

    @Override
    public byte[] value() {
      return value;
    }

    @Override
    public long version() {
      return version;
    }

    @Override
    public long expiresAt() {
      return expiresAt;
    }

    @Override
    public void close() {
      base.close();
    }
  }

  @Override
  public TableInfo info() {
    return base.info();
  }

  @Override
  public void flush() {
    throw new IllegalStateException("a transaction cannot flush its table");
  }
}
