package org.kvstore.server.command;

import java.nio.ByteBuffer;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.kvstore.Cursor;
import org.kvstore.InvalidArgumentException;
import org.kvstore.Table;
import org.kvstore.TableInfo;
import org.kvstore.WriteBatch;
import org.kvstore.spi.Mutation;

/**
 * The table as the commands of one {@code EXEC} see it: the values of the transaction's keys, read
 * once under their locks, with the transaction's own writes applied as its commands run. Nothing
 * reaches the store until {@link #changes()} is written, as one batch, by the {@link Table#update}
 * that holds the locks; so the transaction is atomic, also across crashes, and isolated from other
 * writers of its keys.
 *
 * <p>Only the keys given at construction exist here: the commands of a transaction name their keys
 * ({@link CommandSpec#keyArgs}), and those that do not are refused when queued
 * ({@link CommandSpec#NO_MULTI}). Reaching any other key, or scanning, is a bug in a command's key
 * positions and fails with {@link IllegalStateException}.
 *
 * <p>Thread safety: confined to the thread running the {@code EXEC}.
 */
final class TransactionTable implements Table {
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
  TransactionTable(Table base, List<byte[]> keys, byte[][] values) {
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
  WriteBatch changes() {
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
    for (Mutation m : batch.mutations()) {
      slot(m.key());
    }
    for (Mutation m : batch.mutations()) {
      Slot s = slot(m.key());
      s.value = m.value();
      s.written = true;
    }
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
    for (Mutation m : batch.mutations()) {
      boolean named = false;
      for (byte[] k : keys) {
        named |= java.util.Arrays.equals(k, m.key());
      }
      if (!named) {
        throw new InvalidArgumentException("update", "the batch writes a key which is not among the keys read");
      }
    }
    write(batch);
  }

  @Override
  public Cursor scan(byte[] fromInclusive, byte[] toExclusive, int limit) {
    throw new IllegalStateException("a transaction cannot scan: scanning commands are refused in MULTI");
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
