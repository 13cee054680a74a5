package org.kvstore.wal;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;
import org.kvstore.Histogram;
import org.kvstore.io.FileSystem;
import org.kvstore.io.NoSpace;
import org.kvstore.io.StorageFile;
import org.kvstore.spi.Mutation;
import org.kvstore.stats.HistogramRecorder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The store's write-ahead log: segment files {@code wal/NNNNNN.log} of framed records
 * (docs/format/wal.md), shared by all durable tables.
 *
 * <h2>Group commit</h2>
 *
 * <pre>
 *  enqueue   (pipeline order lock)  mutations -&gt; pending queue, in LSN order; no I/O
 *  writeUpTo (a leader, writeLock)  one thread drains the whole queue: encode + frame + one write();
 *                                   the threads it covered wake and return
 *  syncUpTo  (a leader)             one thread writes everything queued and fsyncs everything
 *                                   written; the threads it covered wake and return
 * </pre>
 *
 * Leaders are chosen by {@link GroupCommitter}, so covered followers never queue on a lock.
 *
 * A write failure that could be undone (the segment was cut back, e.g. on a full disk) fails only the
 * records of that group ({@link WalAppendException}) and the log goes on. Any other failure, above
 * all a failed fsync, is final for this log: it is latched and every later call fails; a fsync is
 * never retried (fsyncgate). Reopening the store recovers from what is on disk.
 *
 * <p>The fsync runs under no lock (the sync leader takes writeLock only to read the current segment
 * and the written LSN). Segments retired by a roll stay open until they are deleted, so a
 * concurrent fsync never hits a closed file.
 *
 * <p>Thread safety: thread-safe. {@code writeLock} guards the current writer, the retired list,
 * {@code writtenLsn} and the failed-group list; {@code syncedLsn} is written by sync leaders only.
 */
public final class WriteAheadLog implements CommitLog {
  private static final Logger LOG = LoggerFactory.getLogger(WriteAheadLog.class);
  private static final int MAX_REMEMBERED_FAILURES = 4096;
  private static final int SCRATCH_BYTES = 64 * 1024;

  private final FileSystem fs;
  private final Path dir;
  private final long segmentBytes;

  private final ConcurrentLinkedQueue<Pending> pending = new ConcurrentLinkedQueue<>();
  private final ReentrantLock writeLock = new ReentrantLock();
  private final GroupCommitter writers = new GroupCommitter();
  private final GroupCommitter syncers = new GroupCommitter();

  @GuardedBy("writeLock")
  private WalWriter writer;
  /** Segment number -> first LSN, of every live segment. */
  @GuardedBy("writeLock")
  private final TreeMap<Long, Long> segments;
  /** Retired (rolled) segment writers still open. */
  @GuardedBy("writeLock")
  private final Map<Long, WalWriter> retired = new TreeMap<>();
  /** Groups whose write failed and was undone: [fromLsn, toLsn] with the error. */
  @GuardedBy("writeLock")
  private final ArrayDeque<FailedGroup> failedGroups = new ArrayDeque<>();
  /** Set once a group failed; from then on every writeUpTo checks the failed groups under the lock. */
  private volatile boolean anyFailedGroup;
  /** Where {@link #drainLocked} encodes each record's payload before framing it. */
  @GuardedBy("writeLock")
  private ByteBuffer scratch = ByteBuffer.allocate(SCRATCH_BYTES).order(ByteOrder.LITTLE_ENDIAN);
  private volatile long writtenLsn;
  private volatile long syncedLsn;
  private final AtomicLong bytesWritten = new AtomicLong();
  /** {@link #bytesWritten} when the last fsync of the current segment's records began. */
  private volatile long bytesAtLastSync;
  /** Written bytes not yet synced past which {@link #unsyncedBytesListener} is told. */
  private volatile long unsyncedBytesLimit = Long.MAX_VALUE;
  private volatile Runnable unsyncedBytesListener = () -> {};
  /** {@link #bytesWritten} below which the listener is not told again. */
  @GuardedBy("writeLock")
  private long nextUnsyncedSignal;
  /** Each fsync's duration; recorded by the segment writers, once per fsync, never per record. */
  private final HistogramRecorder syncNanos = HistogramRecorder.forNanos();
  /** Records per {@code write()}: the group-commit batch size, recorded once per group. */
  private final HistogramRecorder batchRecords = HistogramRecorder.forPowersOfTwo(12);
  private volatile IOException fatal;
  private volatile boolean closed;

  /**
   * A record waiting to be written: its mutations, not yet encoded. The leader that writes it
   * encodes it into {@link #scratch}, so a record costs no array of its own. The lists the write
   * pipeline passes are immutable and their arrays are not modified once written.
   */
  private record Pending(long lsn, long tableId, List<Mutation> mutations, int size) {}

  private record FailedGroup(long from, long to, WalAppendException error) {}

  private WriteAheadLog(FileSystem fs, Path dir, long segmentBytes, TreeMap<Long, Long> segments, long lastLsn) {
    this.fs = fs;
    this.dir = dir;
    this.segmentBytes = segmentBytes;
    this.segments = segments;
    this.writtenLsn = lastLsn;
    this.syncedLsn = lastLsn;
  }

  /**
   * Opens the log in {@code dir} for appending after recovery: starts a new segment whose first
   * record will carry {@code lastLsn + 1}. {@code recovered} are the segments recovery found.
   */
  public static WriteAheadLog open(FileSystem fs, Path dir, long segmentBytes, TreeMap<Long, Long> recovered, long lastLsn)
      throws IOException {
    fs.createDirectories(dir);
    WriteAheadLog log = new WriteAheadLog(fs, dir, segmentBytes, new TreeMap<>(recovered), lastLsn);
    log.writeLock.lock();
    try {
      long number = recovered.isEmpty() ? 1 : recovered.lastKey() + 1;
      log.writer = log.createSegmentLocked(number, lastLsn + 1);
      log.writer.writeFramed();
      log.writer.sync();
    } finally {
      log.writeLock.unlock();
    }
    return log;
  }

  public Path directory() {
    return dir;
  }

  /** REQUIRES: writeLock. Creates a segment file with its header framed (not yet written). */
  @GuardedBy("writeLock")
  private WalWriter createSegmentLocked(long number, long firstLsn) throws IOException {
    assert writeLock.isHeldByCurrentThread();
    Path path = dir.resolve(WalFormat.segmentName(number));
    StorageFile f = fs.open(path, FileSystem.OpenMode.CREATE_NEW);
    try {
      fs.syncDirectory(dir); // the new name is durable before any record in it is acknowledged
    } catch (IOException e) {
      f.close();
      throw NoSpace.syncFailed(dir.toString(), e);
    }
    WalWriter w = new WalWriter(f, number, 0, syncNanos);
    w.frame(WalFormat.encodeSegmentHeader(number, firstLsn), true);
    segments.put(number, firstLsn);
    return w;
  }

  @Override
  public void enqueue(long lsn, long tableId, List<Mutation> mutations) throws IOException {
    checkUsable();
    pending.add(new Pending(lsn, tableId, mutations, WalFormat.writesSize(mutations)));
  }

  @Override
  public void writeUpTo(long lsn) throws IOException {
    if (writtenLsn < lsn) {
      writers.await(lsn, () -> writtenLsn, this::writeRound, this::checkUsable);
    }
    checkWritten(lsn);
  }

  /** One {@code write()} of every queued record. Runs as the group's leader only. */
  private void writeRound() throws IOException {
    writeLock.lock();
    try {
      checkUsable();
      drainLocked();
    } catch (WalAppendException e) {
      // Recorded as a failed group: each writer in it learns it in checkWritten.
    } finally {
      writeLock.unlock();
    }
  }

  /** Throws if the record at {@code lsn} is in a group whose write failed (and was undone). */
  private void checkWritten(long lsn) throws IOException {
    checkUsable();
    if (anyFailedGroup) {
      writeLock.lock();
      try {
        for (FailedGroup g : failedGroups) {
          if (lsn >= g.from() && lsn <= g.to()) {
            throw g.error(); // this writer's record was in the failed group
          }
        }
      } finally {
        writeLock.unlock();
      }
    }
  }

  /**
   * Frames and writes every pending record. A write that fails and is undone fails the records
   * taken from the queue since the last successful write (a failed group), and only those.
   * REQUIRES: writeLock.
   */
  @GuardedBy("writeLock")
  private void drainLocked() throws IOException {
    assert writeLock.isHeldByCurrentThread();
    long first = -1; // the first record taken and not yet written
    long framed = -1; // the last record framed
    long taken = -1; // the last record taken from the queue
    long before = writer.size();
    int framedCount = 0; // records framed since the last write, for the batch-size histogram
    Pending p;
    try {
      while ((p = pending.poll()) != null) {
        taken = p.lsn();
        if (first < 0) {
          first = p.lsn();
        }
        if (writer.size() >= segmentBytes) {
          if (framed >= 0) {
            writer.writeFramed();
            bytesWritten.addAndGet(writer.size() - before);
            signalUnsyncedBytesLocked();
            batchRecords.record(framedCount);
            framedCount = 0;
            writtenLsn = framed;
            first = p.lsn();
          }
          rollLocked(p.lsn());
          before = writer.size();
        }
        writer.frame(encodeLocked(p), p.size(), false);
        framedCount++;
        framed = p.lsn();
      }
      if (framed < 0) {
        return;
      }
      writer.writeFramed();
      bytesWritten.addAndGet(writer.size() - before);
      signalUnsyncedBytesLocked();
      batchRecords.record(framedCount);
      writtenLsn = framed;
    } catch (WalAppendException e) {
      // The records taken since the last successful write are not in the log; later records may
      // still be written.
      failedGroups.addLast(new FailedGroup(first, taken, e));
      anyFailedGroup = true;
      while (failedGroups.size() > MAX_REMEMBERED_FAILURES) {
        failedGroups.removeFirst();
      }
      writtenLsn = Math.max(writtenLsn, taken);
      LOG.warn("{}", e.getMessage());
      throw e;
    } catch (IOException | RuntimeException e) {
      throw latch(e instanceof IOException io ? io : new IOException(e));
    }
  }

  /** Tells the listener of {@link #onUnsyncedBytes} when the written, unsynced bytes passed its limit. */
  @GuardedBy("writeLock")
  private void signalUnsyncedBytesLocked() {
    assert writeLock.isHeldByCurrentThread();
    long written = bytesWritten.get();
    long limit = unsyncedBytesLimit;
    if (written - bytesAtLastSync >= limit && written >= nextUnsyncedSignal) {
      nextUnsyncedSignal = written + limit; // at most one signal per limit's bytes, synced or not
      unsyncedBytesListener.run();
    }
  }

  /**
   * Has {@code listener} told (on a writing thread, under the log's lock: it must only signal) each
   * time a write leaves more than {@code limitBytes} written since the last fsync began: the
   * {@code periodic} mode's syncer then syncs early, so that the fsync a segment roll makes under
   * the lock (and every fsync) has little left to write back.
   */
  public void onUnsyncedBytes(long limitBytes, Runnable listener) {
    if (limitBytes <= 0) {
      throw new IllegalArgumentException("limitBytes must be positive, was " + limitBytes);
    }
    this.unsyncedBytesListener = listener;
    this.unsyncedBytesLimit = limitBytes;
  }

  /** Encodes {@code p}'s payload into {@link #scratch} and returns its array. REQUIRES: writeLock. */
  @GuardedBy("writeLock")
  private byte[] encodeLocked(Pending p) {
    assert writeLock.isHeldByCurrentThread();
    if (scratch.capacity() < p.size() || (scratch.capacity() > SCRATCH_BYTES << 6 && p.size() <= SCRATCH_BYTES)) {
      // grown for this record, or given back after a huge one
      scratch = ByteBuffer.allocate(Math.max(SCRATCH_BYTES, p.size())).order(ByteOrder.LITTLE_ENDIAN);
    }
    scratch.clear();
    WalFormat.encodeWrites(scratch, p.lsn(), p.tableId(), p.mutations());
    return scratch.array();
  }

  /**
   * Syncs and retires the current segment and starts the next, its header written at once: a
   * segment is never left without its header. When the new segment cannot be created or its header
   * written for lack of space, it is deleted and the current segment stays current (a
   * {@link WalAppendException}: the log takes later records). REQUIRES: writeLock.
   */
  @GuardedBy("writeLock")
  private void rollLocked(long firstLsn) throws IOException {
    assert writeLock.isHeldByCurrentThread();
    WalWriter old = writer;
    try {
      old.sync(); // older segments are always complete on disk: damage there is never a torn tail
      bytesAtLastSync = bytesWritten.get();
    } catch (IOException e) {
      throw NoSpace.syncFailed(old.path().toString(), e);
    }
    long number = old.segmentNumber() + 1;
    WalWriter next;
    try {
      next = createSegmentLocked(number, firstLsn);
    } catch (IOException e) {
      if (!NoSpace.causedBy(e)) {
        throw e;
      }
      segments.remove(number);
      deleteQuietly(dir.resolve(WalFormat.segmentName(number)));
      throw new WalAppendException(dir.resolve(WalFormat.segmentName(number)), 0, e);
    }
    try {
      next.writeFramed();
    } catch (WalAppendException e) {
      segments.remove(number);
      try {
        next.close();
      } catch (IOException suppressed) {
        e.addSuppressed(suppressed);
      }
      deleteQuietly(next.path());
      throw e;
    }
    retired.put(old.segmentNumber(), old);
    writer = next;
  }

  private void deleteQuietly(Path p) {
    try {
      fs.delete(p);
    } catch (IOException e) {
      LOG.warn("could not delete the unused log segment {}: {}", p, e.toString());
    }
  }

  @Override
  public void syncUpTo(long lsn) throws IOException {
    if (syncedLsn < lsn) {
      syncers.await(lsn, () -> syncedLsn, this::syncRound, this::checkUsable);
    }
    checkWritten(lsn);
  }

  /**
   * One round for the sync group's leader: writes every queued record, then one fsync covering all
   * that is written. One leader both writes and syncs, so a synced writer wakes once, not twice.
   */
  private void syncRound() throws IOException {
    WalWriter w;
    long target;
    writeLock.lock();
    try {
      checkUsable();
      try {
        drainLocked();
      } catch (WalAppendException e) {
        // Recorded as a failed group; what was written before it is still synced below.
      }
      w = writer;
      target = writtenLsn;
      bytesAtLastSync = bytesWritten.get();
    } finally {
      writeLock.unlock();
    }
    try {
      w.sync();
    } catch (IOException e) {
      throw latch(NoSpace.syncFailed(w.path().toString(), e));
    }
    syncedLsn = target;
  }

  /**
   * Makes every record written so far durable. Records of failed (undone) groups are not the
   * caller's: they do not fail this call.
   */
  @Override
  public void syncWritten() throws IOException {
    long target = writtenLsn;
    if (syncedLsn < target) {
      syncers.await(target, () -> syncedLsn, this::syncRound, this::checkUsable);
    }
    checkUsable();
  }

  /** Bytes appended since this log was opened. */
  public long bytesWritten() {
    return bytesWritten.get();
  }

  /** The duration of each fsync of a segment since this log was opened, in nanoseconds. */
  public Histogram syncNanos() {
    return syncNanos.snapshot();
  }

  /** The records each {@code write()} carried since this log was opened (the group-commit batch size). */
  public Histogram batchRecords() {
    return batchRecords.snapshot();
  }

  public long writtenLsn() {
    return writtenLsn;
  }

  /**
   * Deletes the segments all of whose records are at or below {@code persistedLsn}: every table has
   * them in its persisted state. The current segment always stays. Returns how many were deleted.
   */
  public int deleteObsoleteSegments(long persistedLsn) throws IOException {
    List<Long> doomed = new ArrayList<>();
    writeLock.lock();
    try {
      checkUsable();
      Iterator<Map.Entry<Long, Long>> it = segments.entrySet().iterator();
      Map.Entry<Long, Long> prev = null;
      while (it.hasNext()) {
        Map.Entry<Long, Long> e = it.next();
        // prev's records are all below e's first LSN.
        if (prev != null && e.getValue() - 1 <= persistedLsn && prev.getKey() != writer.segmentNumber()) {
          doomed.add(prev.getKey());
        }
        prev = e;
      }
      for (Long n : doomed) {
        segments.remove(n);
        WalWriter w = retired.remove(n);
        if (w != null) {
          try {
            w.close();
          } catch (IOException e) {
            // It is deleted next; a failed close (e.g. a late ENOSPC) must not stop that half way,
            // or a segment out of the map would stay on disk and leave a gap for recovery.
            LOG.warn("closing the obsolete log segment {} failed: {}", w.path(), e.toString());
          }
        }
      }
    } finally {
      writeLock.unlock();
    }
    for (Long n : doomed) {
      fs.delete(dir.resolve(WalFormat.segmentName(n)));
    }
    if (!doomed.isEmpty()) {
      fs.syncDirectory(dir);
    }
    return doomed.size();
  }

  /** Live segment numbers, oldest first. */
  public List<Long> segmentNumbers() {
    writeLock.lock();
    try {
      return List.copyOf(segments.keySet());
    } finally {
      writeLock.unlock();
    }
  }

  /** Sizes to copy for a backup: the live segments and their written lengths. REQUIRES: nothing. */
  public Map<Path, Long> snapshotForBackup() throws IOException {
    writeLock.lock();
    try {
      checkUsable();
      drainLocked();
      Map<Path, Long> out = new TreeMap<>();
      for (Long n : segments.keySet()) {
        Path p = dir.resolve(WalFormat.segmentName(n));
        out.put(p, n == writer.segmentNumber() ? writer.size() : fs.size(p));
      }
      return out;
    } finally {
      writeLock.unlock();
    }
  }

  /** The latched fatal error, or {@code null}. */
  public IOException fatal() {
    return fatal;
  }

  private IOException latch(IOException e) {
    synchronized (this) {
      if (fatal == null) {
        fatal = e;
        LOG.error("write-ahead log failed; the store is read-only until it is reopened: {}", e.toString());
      }
    }
    return e;
  }

  private void checkUsable() throws IOException {
    IOException f = fatal;
    if (f != null) {
      throw org.kvstore.io.NoSpace.failedEarlier(
          "the write-ahead log failed earlier (" + f.getMessage() + "); reopen the store to recover", f);
    }
    if (closed) {
      throw new IOException("the write-ahead log in " + dir + " is closed");
    }
  }

  @Override
  public void close() throws IOException {
    writeLock.lock();
    try {
      if (closed) {
        return;
      }
      IOException error = null;
      try {
        if (fatal == null) {
          drainLocked();
          writer.sync();
        }
      } catch (IOException e) {
        error = e;
      }
      closed = true;
      for (WalWriter w : retired.values()) {
        try {
          w.close();
        } catch (IOException e) {
          if (error == null) {
            error = e;
          }
        }
      }
      retired.clear();
      try {
        writer.close();
      } catch (IOException e) {
        if (error == null) {
          error = e;
        }
      }
      if (error != null) {
        throw error;
      }
    } finally {
      writeLock.unlock();
    }
  }
}
