package org.kvstore.server.command;

import java.nio.ByteBuffer;
import java.time.Clock;
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
import org.kvstore.Entry;
import org.kvstore.InvalidArgumentException;
import org.kvstore.Precondition;
import org.kvstore.PreconditionFailedException;
import org.kvstore.PutOptions;
import org.kvstore.Table;
import org.kvstore.TableInfo;
import org.kvstore.WriteBatch;
import org.kvstore.WriteResult;

/**
 * The table as the commands of one {@code EXEC} see it: the entries (value, version, expiry) of the
 * transaction's keys, read once under their locks, with the transaction's own writes applied as its
 * commands run. Nothing reaches the store until {@link #changes()} is written, as one batch, by the
 * {@link Table#updateEntries} that holds the locks; so the transaction is atomic, also across
 * crashes, and isolated from other writers of its keys.
 *
 * <p>Point reads and writes reach only the keys given at construction: the commands of a
 * transaction name their keys (the RESP command table's key positions), and those that write other keys are
 * refused when queued (flagged no-multi); reaching any other key is a bug in a
 * command's key positions and fails with {@link IllegalStateException}. A scan (KEYS, SCAN, DBSIZE,
 * RANDOMKEY, KV.RANGE in a transaction) merges the table's entries with the transaction's writes so
 * far: it sees its own transaction, and the rest of the table as a scan outside one would (those
 * keys are not locked).
 *
 * <p>Expiry: a key's expiry is judged by the store's clock, as the store judges it: a key that
 * expires while the transaction runs is absent from then on. Writes resolve their
 * {@link PutOptions} (a time to live, keep-expiry, a precondition) against the view as the store
 * would against the table; {@link #changes()} writes each put with its absolute expiry. An entry
 * the transaction wrote has no version yet ({@link Entry#version()} 0): it gets one when the batch
 * is written.
 *
 * <p>Thread safety: confined to the thread running the {@code EXEC}.
 */
public final class TransactionView implements Table {
  /** A key's current entry within the transaction, and whether the transaction wrote it. */
  private static final class Slot {
    final byte[] key;
    /** Null: absent (or removed by the transaction). */
    byte[] value;
    long version;
    long expiresAt;
    boolean written;

    Slot(byte[] key, Entry entry) {
      this.key = key;
      if (entry != null) {
        value = entry.value();
        version = entry.version();
        expiresAt = entry.expiresAt();
      }
    }

    void set(byte[] v, long expiry) {
      value = v;
      version = 0;
      expiresAt = v == null ? Entry.NO_EXPIRY : expiry;
      written = true;
    }
  }

  private final Table base;
  private final Clock clock;
  private final Map<ByteBuffer, Slot> slots = new LinkedHashMap<>();

  /**
   * {@code entries[i]} is the current entry of {@code keys.get(i)} (null: absent or expired);
   * {@code clock} is the store's.
   */
  public TransactionView(Table base, Clock clock, List<byte[]> keys, Entry[] entries) {
    this.base = base;
    this.clock = clock;
    for (int i = 0; i < keys.size(); i++) {
      slots.putIfAbsent(ByteBuffer.wrap(keys.get(i)), new Slot(keys.get(i), entries[i]));
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

  /** The live entry of {@code s} now, or null when absent or expired. The value is the slot's. */
  private Entry live(Slot s) {
    if (s.value == null || Entry.isExpired(s.expiresAt, clock.millis())) {
      return null;
    }
    return new Entry(s.value, s.version, s.expiresAt);
  }

  private byte[] liveValue(Slot s) {
    Entry e = live(s);
    return e == null ? null : e.value();
  }

  /**
   * The transaction's writes as one batch, in the order its keys were named, each put with its
   * absolute expiry (a key that expired within the transaction is removed); empty if none.
   */
  public WriteBatch changes() {
    WriteBatch b = new WriteBatch();
    for (Slot s : slots.values()) {
      if (s.written) {
        if (live(s) == null) {
          b.remove(s.key);
        } else if (s.expiresAt == Entry.NO_EXPIRY) {
          b.put(s.key, s.value);
        } else {
          b.put(s.key, s.value, PutOptions.defaults().expireAt(s.expiresAt));
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
    slot(key).set(value.clone(), Entry.NO_EXPIRY);
  }

  @Override
  public byte[] get(byte[] key) {
    byte[] v = liveValue(slot(key));
    return v == null ? null : v.clone();
  }

  @Override
  public byte[] getReadOnly(byte[] key) {
    return liveValue(slot(key));
  }

  @Override
  public boolean remove(byte[] key) {
    Slot s = slot(key);
    if (live(s) == null) {
      return false;
    }
    s.set(null, Entry.NO_EXPIRY);
    return true;
  }

  @Override
  public Entry getEntry(byte[] key) {
    Entry e = live(slot(key));
    return e == null ? null : new Entry(e.value().clone(), e.version(), e.expiresAt());
  }

  @Override
  public WriteResult put(byte[] key, byte[] value, PutOptions options) {
    if (key == null || value == null || options == null) {
      throw new InvalidArgumentException(
          key == null ? "key" : value == null ? "value" : "options", "must not be null");
    }
    Slot s = slot(key);
    Entry current = live(s);
    Entry previous = options.readsCurrent() ? copy(current) : null;
    if (!options.precondition().holds(current)) {
      return new WriteResult(false, current == null ? 0 : current.version(), previous);
    }
    s.set(value.clone(), options.resolveExpiry(clock.millis(), current));
    return new WriteResult(true, 0, previous);
  }

  @Override
  public WriteResult remove(byte[] key, Precondition precondition) {
    if (precondition == null) {
      throw new InvalidArgumentException("precondition", "must not be null");
    }
    Slot s = slot(key);
    Entry current = live(s);
    if (current == null || !precondition.holds(current)) {
      return new WriteResult(false, current == null ? 0 : current.version(), copy(current));
    }
    Entry previous = copy(current);
    s.set(null, Entry.NO_EXPIRY);
    return new WriteResult(true, 0, previous);
  }

  @Override
  public boolean expireAt(byte[] key, long epochMillis) {
    if (epochMillis < 1) {
      throw new InvalidArgumentException(
          "expireAt", "must be a positive time in milliseconds since the epoch, was " + epochMillis);
    }
    Slot s = slot(key);
    Entry current = live(s);
    if (current == null) {
      return false;
    }
    if (epochMillis <= clock.millis()) {
      s.set(null, Entry.NO_EXPIRY);
    } else {
      s.set(current.value(), epochMillis);
    }
    return true;
  }

  @Override
  public boolean persist(byte[] key) {
    Slot s = slot(key);
    Entry current = live(s);
    if (current == null || !current.hasExpiry()) {
      return false;
    }
    s.set(current.value(), Entry.NO_EXPIRY);
    return true;
  }

  /**
   * Applies {@code batch} as the store would: every key is checked, and every precondition against
   * the entries before the batch, before any is changed; keep-expiry follows an earlier put of the
   * same key in the batch.
   *
   * @throws PreconditionFailedException when a precondition does not hold (nothing is applied)
   */
  @Override
  public void write(WriteBatch batch) {
    int[] at = {0};
    batch.forEach((key, value) -> {
      Entry current = live(slot(key));
      Precondition p = batch.options(at[0]++).precondition();
      if (!p.holds(current)) {
        throw new PreconditionFailedException(base.database() + "." + base.name(), key, p, current);
      }
    });
    long now = clock.millis();
    at[0] = 0;
    batch.forEach((key, value) -> {
      Slot s = slot(key);
      PutOptions o = batch.options(at[0]++);
      s.set(value, value == null ? Entry.NO_EXPIRY : o.resolveExpiry(now, live(s)));
    });
  }

  /** As the store's: the batch may only touch {@code keys}; the values passed are not copies. */
  @Override
  public void update(List<byte[]> keys, Function<byte[][], WriteBatch> update) {
    byte[][] current = new byte[keys.size()][];
    for (int i = 0; i < current.length; i++) {
      current[i] = liveValue(slot(keys.get(i)));
    }
    writeAmong(keys, update.apply(current));
  }

  /** As the store's: the batch may only touch {@code keys}; the entries' values are copies. */
  @Override
  public void updateEntries(List<byte[]> keys, Function<Entry[], WriteBatch> update) {
    Entry[] current = new Entry[keys.size()];
    for (int i = 0; i < current.length; i++) {
      current[i] = copy(live(slot(keys.get(i))));
    }
    writeAmong(keys, update.apply(current));
  }

  private void writeAmong(List<byte[]> keys, WriteBatch batch) {
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

  private static Entry copy(Entry e) {
    return e == null ? null : new Entry(e.value().clone(), e.version(), e.expiresAt());
  }

  /** The table's entries in the range with the transaction's writes so far applied over them. */
  @Override
  public Cursor scan(byte[] fromInclusive, byte[] toExclusive, int limit) {
    TreeMap<byte[], Entry> written = new TreeMap<>(Arrays::compareUnsigned);
    for (Slot s : slots.values()) {
      if (s.written && (fromInclusive == null || Arrays.compareUnsigned(s.key, fromInclusive) >= 0)
          && (toExclusive == null || Arrays.compareUnsigned(s.key, toExclusive) < 0)) {
        written.put(s.key, live(s)); // null: removed (or expired) by the transaction
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
    private final Iterator<Map.Entry<byte[], Entry>> written;
    private final int limit;
    private int returned;
    private byte[] baseKey;
    private byte[] baseValue;
    private boolean baseDone;
    private Map.Entry<byte[], Entry> pending;
    private long baseVersion;
    private long baseExpiresAt;
    private byte[] key;
    private byte[] value;
    private long version;
    private long expiresAt;

    MergedCursor(Cursor base, TreeMap<byte[], Entry> written, int limit) {
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
          Entry e = pending.getValue();
          key = pending.getKey();
          pending = written.hasNext() ? written.next() : null;
          if (e == null) {
            continue; // removed by the transaction
          }
          key = key.clone();
          value = e.value().clone();
          version = 0; // written by the transaction, not yet committed: no version yet
          expiresAt = e.expiresAt();
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
