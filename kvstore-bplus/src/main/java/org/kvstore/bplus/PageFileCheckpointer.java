package org.kvstore.bplus;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import java.io.IOException;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import org.kvstore.bplus.buffer.BufferPool;
import org.kvstore.bplus.buffer.PageFile;
import org.kvstore.bplus.page.MetaPage;
import org.kvstore.bplus.tree.BPlusTree;
import org.kvstore.bplus.tree.CheckpointGate;
import org.kvstore.io.NoSpace;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Checkpoints the page file (docs/format/bplus.md section 4): freeze writers, read the apply
 * watermark, write dirty pages (collapsing an emptied tree and moving pages down in a mostly free
 * file first), copy the page table, thaw; then write the page table, fsync, write the meta page,
 * fsync, and cut the file's free tail.
 *
 * <p>Errors are latched: after a failed checkpoint (a failed fsync may have dropped dirty pages
 * from the OS cache) every later one fails, and reopening recovers. Except a checkpoint that failed
 * for lack of disk space in a write: it wrote only to free slots (the durable checkpoint is
 * untouched), the pages it could not write are still dirty in the pool, so it is not latched and a
 * later checkpoint retries it. A checkpoint is refused the same way while the table holds logged
 * writes it could not apply yet for lack of space ({@code unapplied}): a state persisted at an LSN
 * above them would lose them.
 *
 * <p>Thread safety: thread-safe; checkpoints run one at a time.
 */
final class PageFileCheckpointer {
  private static final Logger LOG = LoggerFactory.getLogger(PageFileCheckpointer.class);
  private final PageFile file;
  private final BufferPool pool;
  private final BPlusTree tree;
  private final CheckpointGate gate;
  private final LongSupplier appliedLsn;
  private final Supplier<IOException> unapplied;
  private final Object checkpointLock = new Object();
  private volatile long checkpointSeq;
  private volatile long persistedLsn;
  @GuardedBy("checkpointLock")
  private IOException failure;

  PageFileCheckpointer(
      PageFile file, BufferPool pool, BPlusTree tree, CheckpointGate gate, LongSupplier appliedLsn,
      Supplier<IOException> unapplied, MetaPage last) {
    this.file = file;
    this.pool = pool;
    this.tree = tree;
    this.gate = gate;
    this.appliedLsn = appliedLsn;
    this.unapplied = unapplied;
    this.checkpointSeq = last.checkpointSeq();
    this.persistedLsn = last.checkpointLsn();
  }

  long persistedLsn() {
    return persistedLsn;
  }

  long checkpointSeq() {
    return checkpointSeq;
  }

  /** Copies the file at its durable checkpoint into {@code target} (no checkpoint runs meanwhile). */
  void backup(org.kvstore.io.StorageFile target) throws IOException {
    synchronized (checkpointLock) {
      file.copyTo(target);
    }
  }

  /**
   * Runs one checkpoint; returns its LSN. When that checkpoint leaves live pages or its page table
   * in a mostly free file's tail, runs a second one right away, which moves them down so the tail
   * can be cut (the first could not: the slots below were still the previous checkpoint's).
   */
  long checkpoint() throws IOException {
    synchronized (checkpointLock) {
      long lsn = checkpointLocked();
      if (file.tailMovable()) {
        lsn = checkpointLocked();
      }
      return lsn;
    }
  }

  /**
   * The most pages one checkpoint rewrites to move them down in the file: a quarter of the pool,
   * and no more than the spare slots (so moving pages never grows the file, and leaves the pool
   * no dirty pages without a spare slot if the checkpoint fails).
   */
  private int relocationBudget() {
    return Math.min(Math.max(1, pool.capacity() / 4), file.spareSlots() - pool.dirtyPages());
  }

  /**
   * Cuts the file's free tail, keeping a spare slot for every dirty page. Writers are paused
   * meanwhile: a change in flight counts on the spare slots it was promised.
   */
  @GuardedBy("checkpointLock")
  private void truncateFreeTail() throws IOException {
    if (!file.tailCuttable(pool.dirtyPages())) {
      return;
    }
    gate.freeze();
    try {
      file.truncateFreeTail(pool.dirtyPages());
    } finally {
      gate.thaw();
    }
  }

  @GuardedBy("checkpointLock")
  private long checkpointLocked() throws IOException {
    assert Thread.holdsLock(checkpointLock);
    if (failure != null) {
      throw NoSpace.failedEarlier("an earlier checkpoint of " + file.path() + " failed", failure);
    }
    try {
      long lsn;
      long[] snapshot;
      long[] ptSlots;
      int height;
      long entries;
      long nextChainId;
      gate.freeze();
      try {
        lsn = appliedLsn.getAsLong();
        IOException pending = unapplied.get(); // read after the LSN: see the class comment
        if (pending != null) {
          throw pending;
        }
        pool.writeBackAll();
        if (tree.collapseIfEmpty()) {
          pool.writeBackAll();
        }
        long[] relocate = file.relocationCandidates(relocationBudget());
        if (relocate.length > 0) {
          pool.rewrite(relocate);
          pool.writeBackAll();
        }
        if (file.changesSinceSnapshot() == 0 && lsn == persistedLsn && checkpointSeq > 0
            && !file.tailMovable()) {
          return lsn; // nothing changed since the last checkpoint
        }
        snapshot = file.snapshotForCheckpoint();
        ptSlots = file.allocatePageTable(snapshot); // spare slots are promised to no change now
        height = tree.height();
        entries = tree.entryCount();
        nextChainId = tree.nextChainId();
      } finally {
        gate.thaw();
      }
      file.writePageTable(snapshot, ptSlots);
      MetaPage meta =
          new MetaPage(
              file.pageSize(), checkpointSeq + 1, lsn, BPlusTree.ROOT_ID, height, entries,
              snapshot.length, ptSlots.length == 0 ? 0 : ptSlots[0], nextChainId);
      file.writeMeta(meta);
      checkpointSeq = meta.checkpointSeq();
      persistedLsn = lsn;
      file.checkpointDone(snapshot, ptSlots);
      try {
        truncateFreeTail();
      } catch (IOException e) {
        // The checkpoint is durable and the longer file is valid: a later checkpoint retries.
        LOG.warn("could not cut the free tail of {}: {}", file.path(), e.toString());
      }
      return lsn;
    } catch (IOException e) {
      if (NoSpace.causedBy(e)) {
        file.checkpointFailed();
        LOG.warn("checkpoint of {} failed for lack of disk space; the previous checkpoint stays: {}",
            file.path(), e.toString());
      } else {
        failure = e;
      }
      throw e;
    }
  }
}
