package org.kvstore.internal;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import org.kvstore.Cursor;
import java.time.Clock;
import org.kvstore.Durability;
import org.kvstore.Entry;
import org.kvstore.Precondition;
import org.kvstore.PreconditionFailedException;
import org.kvstore.PutOptions;
import org.kvstore.ReplicatedTable;
import org.kvstore.WriteResult;
import org.kvstore.InvalidArgumentException;
import org.kvstore.KVStoreException;
import org.kvstore.NoSuchTableException;
import org.kvstore.StorageIOException;
import org.kvstore.StoreClosedException;
import org.kvstore.Table;
import org.kvstore.TableInfo;
import org.kvstore.WriteBatch;
import org.kvstore.catalog.TableDescriptor;
import org.kvstore.codec.Keys;
import org.kvstore.spi.EngineStats;
import org.kvstore.spi.EngineTable;
import org.kvstore.spi.Mutation;
import org.kvstore.spi.SingleKeyWrites;

/**
 * An open table: validates arguments, takes key locks, sends writes through the
 * {@link WritePipeline}, and guards the engine table's life cycle.
 *
 * <p>Thread safety: thread-safe. Data operations pass through {@code gate} while they run;
 * {@link #close} closes it and waits for them, so the engine is never closed under a running
 * operation.
 * Open cursors are tracked and invalidated on close rather than waited for.
 */
public final class StoreTable implements Table, ReplicatedTable {
  private final TableDescriptor descriptor;
  private final EngineTable engine;
  private final boolean durable;
  private final Durability durability;
  private final Map<String, String> effectiveProperties;
  private final Path directory;
  private final WritePipeline pipeline;
  private final Limits limits;
  private final Clock clock;
  /**
   * The earliest expiry written since the active expiry last took it ({@link #takeEarliestExpiryWritten});
   * {@code Long.MAX_VALUE}: none. Lets the active expiry rest on a table until something in it is due.
   */
  private final AtomicLong earliestExpiryWritten = new AtomicLong(Long.MAX_VALUE);
  private final KeySequencer sequencer = new KeySequencer();
  private final OperationGate gate = new OperationGate();
  private final Set<TableCursor> cursors = ConcurrentHashMap.newKeySet();
  /** The highest LSN logged for this table (set under the pipeline's order lock). */
  private volatile long loggedLsn;
  /** Whether the table's writes come from a replication log ({@link ReplicatedTable}). */
  private final boolean replicated;
  /** A replicated table's highest applied index (written by the one {@link #apply} caller). */
  private volatile long replicatedApplied;

  /** Key and value size limits of the store. */
  record Limits(int maxKeyBytes, int maxValueBytes) {}

  StoreTable(
      TableDescriptor descriptor,
      EngineTable engine,
      boolean durable,
      Durability durability,
      Map<String, String> effectiveProperties,
      Path directory,
      WritePipeline pipeline,
      Limits limits,
      Clock clock,
      boolean replicated) {
    this.descriptor = descriptor;
    this.replicated = replicated;
    this.engine = engine;
    this.durable = durable;
    this.durability = durability;
    this.effectiveProperties = effectiveProperties;
    this.directory = directory;
    this.pipeline = pipeline;
    this.limits = limits;
    this.clock = clock;
  }

  public long id() {
    return descriptor.id();
  }

  public TableDescriptor descriptor() {
    return descriptor;
  }

  public String qualifiedName() {
    return descriptor.qualifiedName();
  }

  public boolean durable() {
    return durable;
  }

  /** The effective durability of this table's writes ({@code null} when not durable). */
  public Durability durabilityMode() {
    return durability;
  }

  /** Records that a write of this table was logged at {@code lsn}. REQUIRES: the pipeline's order lock. */
  void loggedUpTo(long lsn) {
    loggedLsn = lsn;
  }

  /**
   * The LSN below which this table needs no log record: its persisted LSN, or {@code watermark}
   * (an apply watermark read before the table's last flush started) when every write ever logged
   * for the table is persisted. A table without recent writes thus never pins old log segments.
   */
  long logNeededAbove(long watermark) {
    if (replicated) {
      return watermark; // its log is outside the store
    }
    long persisted = engine.persistedLsn();
    return loggedLsn <= persisted ? Math.max(persisted, watermark) : persisted;
  }

  public EngineTable engine() {
    return engine;
  }

  /** The table's own directory. */
  public Path directory() {
    return directory;
  }

  @Override
  public String database() {
    return descriptor.database();
  }

  @Override
  public String name() {
    return descriptor.name();
  }

  @Override
  public void put(byte[] key, byte[] value) {
    checkKey(key);
    checkValue(key, value);
    // Copied: the engine may keep the arrays, and the caller may reuse its own.
    writeLocked(KeySequencer.stripesOf(key), List.of(Mutation.put(key.clone(), value.clone())), null);
  }

  /**
   * Writes {@code mutations} whose keys hash to {@code stripes}. When {@code readFirst} is given it
   * runs with the stripes locked and quiescent (every earlier write of them applied) and returns the
   * mutations to write, or {@code null} for none; otherwise {@code mutations} are written. Returns
   * the write's version (its LSN), or 0 when nothing was written.
   */
  private long writeLocked(int[] stripes, List<Mutation> mutations, ReadStep readFirst) {
    if (replicated) {
      throw new InvalidArgumentException("table", qualifiedName()
          + " is replicated: it is written only through its replication log (ReplicatedTable.apply)");
    }
    enter();
    try {
      WritePipeline.PendingWrite pending;
      sequencer.lock(stripes);
      try {
        List<Mutation> toWrite = mutations;
        if (readFirst != null) {
          sequencer.awaitQuiescent(stripes);
          toWrite = readFirst.read();
          if (toWrite == null || toWrite.isEmpty()) {
            // Nothing to write is still a write: refused while the store is not writable. The state
            // just read may lack a logged write of these keys whose apply failed (its outcome
            // unknown), which the next open replays; acknowledging, say, a remove that found its key
            // absent would then be undone. Such a failure is latched before the keys are quiescent.
            pipeline.checkWritable();
            return 0;
          }
        }
        noteExpiring(toWrite);
        if (!durable) {
          return pipeline.applyUnlogged(this, toWrite);
        }
        pending = pipeline.begin(this, toWrite, sequencer, stripes);
      } catch (IOException e) {
        throw io("read before write", e);
      } finally {
        sequencer.unlock(stripes);
      }
      pipeline.finish(pending);
      return pending.lsn;
    } finally {
      exit();
    }
  }

  private void noteExpiring(List<Mutation> mutations) {
    for (Mutation m : mutations) {
      long e = m.expiresAt();
      if (e != Entry.NO_EXPIRY) {
        long cur;
        while (e < (cur = earliestExpiryWritten.get()) && !earliestExpiryWritten.compareAndSet(cur, e)) {
          // another writer lowered it meanwhile: compare again
        }
      }
    }
  }

  /** The read of a read-modify-write. */
  @FunctionalInterface
  private interface ReadStep {
    List<Mutation> read() throws IOException;
  }

  @Override
  public byte[] get(byte[] key) {
    return read(key, false);
  }

  @Override
  public byte[] getReadOnly(byte[] key) {
    return read(key, true);
  }

  @Override
  public void multiGetReadOnly(byte[][] keys, byte[][] values) {
    if (keys == null || values == null) {
      throw new InvalidArgumentException(keys == null ? "keys" : "values", "must not be null");
    }
    if (keys.length != values.length) {
      throw new InvalidArgumentException("values", "must have one slot per key: " + keys.length
          + " keys but " + values.length + " slots (table " + qualifiedName() + ")");
    }
    for (byte[] key : keys) {
      checkKey(key);
    }
    enter();
    try {
      engine.multiGetReadOnly(keys, values);
    } catch (IOException e) {
      throw io("multiGet", e);
    } finally {
      exit();
    }
  }

  private byte[] read(byte[] key, boolean readOnly) {
    checkKey(key);
    enter();
    try {
      return readOnly ? engine.getReadOnly(key) : engine.get(key);
    } catch (IOException e) {
      throw io("get", e);
    } finally {
      exit();
    }
  }

  @Override
  public boolean remove(byte[] key) {
    checkKey(key);
    boolean[] existed = {false};
    byte[] k = key.clone();
    writeLocked(KeySequencer.stripesOf(k), null, () -> {
      existed[0] = engine.get(k) != null;
      return existed[0] ? List.of(Mutation.remove(k)) : null;
    });
    return existed[0];
  }

  @Override
  public void write(WriteBatch batch) {
    if (batch == null) {
      throw new InvalidArgumentException("batch", "must not be null");
    }
    List<Mutation> mutations = checkBatch(batch);
    if (mutations.isEmpty()) {
      return;
    }
    List<byte[]> keys = new ArrayList<>(mutations.size());
    for (Mutation m : mutations) {
      keys.add(m.key());
    }
    int[] stripes = KeySequencer.stripesOf(keys);
    if (!batch.hasOptions()) {
      writeLocked(stripes, mutations, null);
    } else if (!batch.readsCurrent()) {
      // Times to live only: resolved now, written like a plain batch (no wait for quiescence).
      writeLocked(stripes, resolveWithoutReads(batch, mutations), null);
    } else {
      writeLocked(stripes, null, () -> resolve(batch, mutations, new CurrentEntries()));
    }
  }

  /**
   * The entries of keys as they were before a batch, each read once. REQUIRES: the keys' stripes
   * locked and quiescent. Thread safety: confined to the writing thread.
   */
  private final class CurrentEntries implements WriteBatch.CurrentEntries {
    private final Map<ByteBuffer, Entry> read = new HashMap<>();
    private final Map<ByteBuffer, Entry> seeded = new HashMap<>();

    /** Answers {@code key} with {@code entry} without reading it (already read by the caller). */
    void seed(byte[] key, Entry entry) {
      seeded.put(ByteBuffer.wrap(key), entry);
    }

    @Override
    public Entry get(byte[] key) throws IOException {
      ByteBuffer k = ByteBuffer.wrap(key);
      if (seeded.containsKey(k)) {
        return seeded.get(k);
      }
      if (read.containsKey(k)) {
        return read.get(k);
      }
      Entry e = engine.getEntry(key);
      read.put(k, e);
      return e;
    }
  }

  /** {@link #resolve} of a batch whose options read nothing (times to live, absolute expiries). */
  private List<Mutation> resolveWithoutReads(WriteBatch batch, List<Mutation> mutations) {
    try {
      return resolve(batch, mutations, null);
    } catch (IOException e) {
      throw new IllegalStateException("a batch that reads nothing read the store", e);
    }
  }

  /**
   * The mutations of {@code batch} as the engine takes them ({@link WriteBatch#resolve}): {@code
   * mutations} when it has no options, else preconditions checked against {@code current} and
   * expiries resolved at the clock's time.
   */
  private List<Mutation> resolve(WriteBatch batch, List<Mutation> mutations, CurrentEntries current)
      throws IOException {
    if (!batch.hasOptions()) {
      return mutations;
    }
    return batch.resolve(qualifiedName(), clock.millis(), current);
  }

  @Override
  public void update(List<byte[]> keys, Function<byte[][], WriteBatch> update) {
    if (keys == null || update == null) {
      throw new InvalidArgumentException(keys == null ? "keys" : "update", "must not be null");
    }
    for (byte[] k : keys) {
      checkKey(k);
    }
    writeLocked(KeySequencer.stripesOf(keys), null, () -> {
      byte[][] current = new byte[keys.size()][];
      for (int i = 0; i < current.length; i++) {
        current[i] = engine.get(keys.get(i));
      }
      return checkUpdate(keys, update.apply(current), null);
    });
  }

  @Override
  public void updateEntries(List<byte[]> keys, Function<Entry[], WriteBatch> update) {
    if (keys == null || update == null) {
      throw new InvalidArgumentException(keys == null ? "keys" : "update", "must not be null");
    }
    for (byte[] k : keys) {
      checkKey(k);
    }
    writeLocked(KeySequencer.stripesOf(keys), null, () -> {
      Entry[] current = new Entry[keys.size()];
      CurrentEntries known = new CurrentEntries();
      for (int i = 0; i < current.length; i++) {
        current[i] = engine.getEntry(keys.get(i));
        known.seed(keys.get(i), current[i]);
      }
      return checkUpdate(keys, update.apply(current), known);
    });
  }

  /** The mutations of an update's batch, checked to touch only {@code keys}, options resolved. */
  private List<Mutation> checkUpdate(List<byte[]> keys, WriteBatch batch, CurrentEntries known)
      throws IOException {
    if (batch == null || batch.isEmpty()) {
      return null;
    }
    List<Mutation> mutations = checkBatch(batch);
    byte[] stray = firstKeyNotAmong(mutations, keys);
    if (stray != null) {
      throw new InvalidArgumentException(
          "update", "the batch writes key " + Keys.printable(stray) + " which is not among the keys read");
    }
    if (!batch.hasOptions()) {
      return mutations;
    }
    return resolve(batch, mutations, batch.readsCurrent() ? (known != null ? known : new CurrentEntries()) : null);
  }

  @Override
  public Entry getEntry(byte[] key) {
    checkKey(key);
    enter();
    try {
      return engine.getEntry(key);
    } catch (IOException e) {
      throw io("get", e);
    } finally {
      exit();
    }
  }

  @Override
  public WriteResult put(byte[] key, byte[] value, PutOptions options) {
    checkKey(key);
    checkValue(key, value);
    if (options == null) {
      throw new InvalidArgumentException("options", "must not be null");
    }
    byte[] k = key.clone();
    byte[] v = value.clone();
    int[] stripes = KeySequencer.stripesOf(k);
    if (!options.readsCurrent()) {
      long version = writeLocked(stripes, SingleKeyWrites.put(k, v, options, null, clock.millis()), null);
      return new WriteResult(true, version, null);
    }
    Entry[] found = new Entry[1];
    long version = writeLocked(stripes, null, () -> {
      found[0] = engine.getEntry(k);
      return SingleKeyWrites.put(k, v, options, found[0], clock.millis());
    });
    return SingleKeyWrites.result(version, found[0], false);
  }

  @Override
  public WriteResult remove(byte[] key, Precondition precondition) {
    checkKey(key);
    if (precondition == null) {
      throw new InvalidArgumentException("precondition", "must not be null");
    }
    byte[] k = key.clone();
    Entry[] found = new Entry[1];
    long version = writeLocked(KeySequencer.stripesOf(k), null, () -> {
      found[0] = engine.getEntry(k);
      return SingleKeyWrites.remove(k, precondition, found[0]);
    });
    return SingleKeyWrites.result(version, found[0], true);
  }

  @Override
  public boolean expireAt(byte[] key, long epochMillis) {
    checkKey(key);
    SingleKeyWrites.checkExpireAt(epochMillis);
    byte[] k = key.clone();
    return writeLocked(KeySequencer.stripesOf(k), null,
        () -> SingleKeyWrites.expireAt(k, epochMillis, engine.getEntry(k), clock.millis())) != 0;
  }

  @Override
  public boolean persist(byte[] key) {
    checkKey(key);
    byte[] k = key.clone();
    return writeLocked(KeySequencer.stripesOf(k), null, () -> SingleKeyWrites.persist(k, engine.getEntry(k))) != 0;
  }

  /**
   * Removes those of {@code keys} that are still absent to reads (expired, or already gone), through
   * the logged write path, in one batch: the active expiry's delete. A key written again since it
   * was found expired is kept. Returns how many removals were written.
   */
  int removeExpired(List<byte[]> keys) {
    if (keys.isEmpty()) {
      return 0;
    }
    int[] removed = {0};
    writeLocked(KeySequencer.stripesOf(keys), null, () -> {
      List<Mutation> out = new ArrayList<>(keys.size());
      for (byte[] k : keys) {
        if (engine.getEntry(k) == null) {
          out.add(Mutation.remove(k));
        }
      }
      removed[0] = out.size();
      return out;
    });
    return removed[0];
  }

  /** The earliest expiry written since the last {@link #takeEarliestExpiryWritten} (MAX_VALUE: none). */
  long earliestExpiryWritten() {
    return earliestExpiryWritten.get();
  }

  /** Returns {@link #earliestExpiryWritten} and starts over from none. */
  long takeEarliestExpiryWritten() {
    return earliestExpiryWritten.getAndSet(Long.MAX_VALUE);
  }

  /**
   * The first key the mutations write that is not among {@code keys} (by content), or null. Linear
   * in both sizes: a few keys (INCR, RENAME) are compared directly, more (MSETNX of many keys)
   * through a hash set, not each mutation against every key.
   */
  private static byte[] firstKeyNotAmong(List<Mutation> mutations, List<byte[]> keys) {
    if (keys.size() <= 8) {
      for (Mutation m : mutations) {
        boolean found = false;
        for (int i = 0; i < keys.size() && !found; i++) {
          found = Arrays.equals(keys.get(i), m.key());
        }
        if (!found) {
          return m.key();
        }
      }
      return null;
    }
    Set<ByteBuffer> allowed = new HashSet<>(keys.size() * 2);
    for (byte[] k : keys) {
      allowed.add(ByteBuffer.wrap(k));
    }
    for (Mutation m : mutations) {
      if (!allowed.contains(ByteBuffer.wrap(m.key()))) {
        return m.key();
      }
    }
    return null;
  }

  @Override
  public Cursor scan(byte[] fromInclusive, byte[] toExclusive, int limit) {
    enter();
    try {
      TableCursor c = new TableCursor(this, engine.newCursor(fromInclusive, toExclusive), limit);
      cursors.add(c);
      return c;
    } catch (IOException e) {
      throw io("scan", e);
    } finally {
      exit();
    }
  }

  @Override
  public TableInfo info() {
    enter();
    try {
      EngineStats s = engine.stats();
      return new TableInfo(
          descriptor.database(), descriptor.name(), descriptor.id(), descriptor.engine(),
          effectiveProperties, durability, s.entryEstimate(), s.bytesOnDisk(), directory, s.details());
    } catch (IOException e) {
      throw io("stats", e);
    } finally {
      exit();
    }
  }

  // ---- replicated tables ----

  /** Whether the table's writes come from a replication log (the table property {@code replicated}). */
  public boolean replicated() {
    return replicated;
  }

  /** Starts a replicated table's applied index at its persisted state (after the engine opened). */
  void startReplicated() {
    replicatedApplied = engine.persistedLsn();
  }

  /** The apply watermark a replicated table's engine records with the state it persists. */
  long replicatedAppliedLsn() {
    return replicatedApplied;
  }

  @Override
  public Table table() {
    return this;
  }

  @Override
  public void apply(long lsn, List<Mutation> mutations) {
    if (mutations == null) {
      throw new InvalidArgumentException("mutations", "must not be null");
    }
    long applied = replicatedApplied;
    if (lsn <= applied) {
      throw new InvalidArgumentException("lsn", "index " + lsn + " is not above the applied index "
          + applied + " of table " + qualifiedName());
    }
    for (Mutation m : mutations) {
      checkKey(m.key());
      if (!m.isRemove()) {
        checkValue(m.key(), m.value());
      }
    }
    enter();
    try {
      if (!mutations.isEmpty()) {
        noteExpiring(mutations);
        WritePipeline.applyTo(this, mutations, lsn);
      }
      replicatedApplied = lsn;
    } catch (IOException e) {
      throw io("apply at index " + lsn, e);
    } finally {
      exit();
    }
  }

  @Override
  public long appliedLsn() {
    return replicatedApplied;
  }

  @Override
  public Cursor scanIncludingExpired(byte[] fromInclusive, byte[] toExclusive) {
    enter();
    try {
      TableCursor c = new TableCursor(this, engine.newCursorIncludingExpired(fromInclusive, toExclusive), 0);
      cursors.add(c);
      return c;
    } catch (IOException e) {
      throw io("scan including expired entries", e);
    } finally {
      exit();
    }
  }

  @Override
  public long takeEarliestExpiryApplied() {
    return takeEarliestExpiryWritten(); // a replicated table's only writes are its applies
  }

  @Override
  public long persistedLsn() {
    return engine.persistedLsn();
  }

  @Override
  public long checkpoint() {
    enter();
    try {
      return engine.flush();
    } catch (IOException e) {
      throw io("flush", e);
    } finally {
      exit();
    }
  }

  /** Copies the engine's persisted state into {@code target} (existing, empty). */
  void backupPersistedState(Path target) throws IOException {
    enter();
    try {
      engine.backup(target);
    } finally {
      exit();
    }
  }

  @Override
  public void flush() {
    enter();
    try {
      engine.flush();
    } catch (IOException e) {
      throw io("flush", e);
    } finally {
      exit();
    }
  }

  /**
   * Closes the engine table once running operations finish; later calls fail with {@code reason}.
   * Open cursors are invalidated. Idempotent.
   */
  void close(String reason) throws IOException {
    if (!gate.close(reason)) {
      return;
    }
    for (TableCursor c : cursors) {
      c.invalidate();
    }
    cursors.clear();
    engine.close();
  }

  void cursorClosed(TableCursor c) {
    cursors.remove(c);
  }

  /** Enters a data operation. REQUIRES: a matching {@link #exit()} in a finally block. */
  void enter() {
    String reason = gate.enter();
    if (reason != null) {
      throw closedError(reason);
    }
  }

  void exit() {
    gate.exit();
  }

  private KVStoreException closedError(String reason) {
    if (reason.equals(DROPPED)) {
      return new NoSuchTableException(descriptor.database(), descriptor.name());
    }
    return new StoreClosedException("table " + qualifiedName() + " (" + reason + ")");
  }

  static final String DROPPED = "dropped";
  /** The reason a replicated table's old handle is closed once a copy replaced it. */
  static final String REPLACED = "replaced by an installed copy; look the table up again";

  StorageIOException io(String op, IOException e) {
    return new StorageIOException("table " + qualifiedName() + ": " + op, e);
  }

  private void checkKey(byte[] key) {
    if (key == null) {
      throw new InvalidArgumentException("key", "must not be null");
    }
    if (key.length == 0 || key.length > limits.maxKeyBytes()) {
      throw new InvalidArgumentException(
          "key", "must be 1 to " + limits.maxKeyBytes() + " bytes, was " + key.length
              + " (table " + qualifiedName() + ")");
    }
  }

  private void checkValue(byte[] key, byte[] value) {
    if (value == null) {
      throw new InvalidArgumentException("value", "must not be null (key " + Keys.printable(key) + ")");
    }
    if (value.length > limits.maxValueBytes()) {
      throw new InvalidArgumentException(
          "value", "of key " + Keys.printable(key) + " is " + value.length + " bytes, the limit is "
              + limits.maxValueBytes() + " (table " + qualifiedName() + ")");
    }
  }

  private List<Mutation> checkBatch(WriteBatch batch) {
    List<Mutation> mutations = batch.mutations();
    for (Mutation m : mutations) {
      checkKey(m.key());
      if (!m.isRemove()) {
        checkValue(m.key(), m.value());
      }
    }
    return List.copyOf(mutations);
  }
}
