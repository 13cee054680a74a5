package org.kvstore.lsm.memtable;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The direct memory the memtables of a store copy their values into: chunks of {@link #chunkBytes()}
 * outside the collected heap, at most {@link #capacityBytes()} of them, taken by a memtable as it
 * fills and given back whole when its flush is installed and no cursor reads it any more (see
 * docs/decisions/0041-memtable-values-off-heap.md). A memtable value is then not a heap object the
 * young collector copies while the memtable lives (the collector's pause under a write load is the
 * copying of live memtables), and a flushed memtable's memory goes back to the next memtable
 * without waiting for a collection.
 *
 * <pre>
 *   free chunks ──take──▶ memtable (bump allocation, values copied in) ──flush installed,
 *        ▲                                                                 no cursor left
 *        └──────────────────────────── give back ◀───────────────────────────┘
 * </pre>
 *
 * <p>Chunks are allocated lazily, up to the capacity; when all are taken (more memtables than the
 * write buffer budget holds, or no direct memory for another chunk under
 * {@code -XX:MaxDirectMemorySize}), a memtable keeps its further values on the heap as before. A
 * chunk is reused only after its memtable marked itself recycled; a point read racing the reuse
 * detects it (see {@link MemTable}) and reads again from the table's current view. Chunks of the
 * memtables of a closing table are forgotten, not reused (a reader after the close may still read
 * them); with the last table closed the free chunks are dropped too, and the collector returns
 * their memory once nothing refers to them. Nothing is freed explicitly, so no reader can touch
 * freed memory.
 *
 * <p>Thread safety: thread-safe; the free list and the counts are guarded by this object's monitor,
 * taken once per chunk (a memtable allocates inside its chunk without it).
 */
public final class MemtableArena {
  private static final Logger LOG = LoggerFactory.getLogger(MemtableArena.class);
  private static final int MIN_CHUNK = 64 << 10;
  private static final int MAX_CHUNK = 1 << 20;

  private final long capacityBytes;
  private final int chunkBytes;
  private final int maxChunks;

  @GuardedBy("this")
  private final ArrayDeque<Chunk> free = new ArrayDeque<>();
  /** Chunks allocated and not forgotten: taken by memtables or free. */
  @GuardedBy("this")
  private int chunks;
  /** Tables using the arena; with none left the free chunks are dropped. */
  @GuardedBy("this")
  private int users;
  /** The chunk limit after direct memory ran out ({@link #maxChunks} until then). */
  @GuardedBy("this")
  private int limit;

  /** One chunk of direct memory. Its bytes are written only by the memtable that took it. */
  static final class Chunk {
    final ByteBuffer memory;
    /** Bytes handed out by {@link #reserve}; may pass the capacity (a failed reservation). */
    private final AtomicInteger used = new AtomicInteger();

    Chunk(int bytes) {
      this.memory = ByteBuffer.allocateDirect(bytes);
    }

    /** The offset of {@code len} fresh bytes in this chunk, or -1 when they do not fit. */
    int reserve(int len) {
      int off = used.getAndAdd(len);
      return off <= memory.capacity() - len ? off : -1;
    }

    /** Empties the chunk for its next memtable. */
    void reset() {
      used.set(0);
    }
  }

  /**
   * An arena of up to {@code capacityBytes} (0: none, every value stays on the heap), in chunks of a
   * 256th of it between 64 KiB and 1 MiB.
   */
  public MemtableArena(long capacityBytes) {
    if (capacityBytes < 0) {
      throw new IllegalArgumentException("memtable arena capacity must be >= 0, was " + capacityBytes);
    }
    this.capacityBytes = capacityBytes;
    this.chunkBytes = (int) Math.max(MIN_CHUNK, Math.min(MAX_CHUNK, capacityBytes / 256));
    this.maxChunks = (int) Math.min(Integer.MAX_VALUE, capacityBytes / chunkBytes);
    this.limit = maxChunks;
  }

  public long capacityBytes() {
    return capacityBytes;
  }

  public int chunkBytes() {
    return chunkBytes;
  }

  /**
   * The largest value a memtable copies into a chunk; larger ones stay on the heap. (A value that
   * does not fit the rest of its memtable's chunk leaves that rest unused: at most an eighth.)
   */
  int largestValue() {
    return chunkBytes / 8;
  }

  /** Direct memory held: chunks taken by memtables and free ones (for statistics and tests). */
  public synchronized long allocatedBytes() {
    return (long) chunks * chunkBytes;
  }

  /** A table opened over this arena. */
  public synchronized void opened() {
    users++;
  }

  /** A table over this arena closed; with the last one the free chunks are dropped. */
  public synchronized void closed() {
    if (--users == 0) {
      chunks -= free.size();
      free.clear();
      limit = maxChunks; // direct memory may have room again by the next open
    }
  }

  /** A free chunk, or {@code null} when the arena is at its capacity (the memtable then uses the heap). */
  synchronized Chunk take() {
    Chunk c = free.pollFirst();
    if (c != null) {
      return c;
    }
    if (chunks >= limit) {
      return null;
    }
    try {
      c = new Chunk(chunkBytes);
    } catch (OutOfMemoryError e) {
      limit = chunks;
      LOG.warn("memtable arena: no direct memory for another chunk of {} bytes ({}); memtables keep their "
              + "further values on the heap: lower the write buffer budget or raise -XX:MaxDirectMemorySize",
          chunkBytes, e.getMessage());
      return null;
    }
    chunks++;
    return c;
  }

  /**
   * Takes back the chunks of a memtable that no reader can read any more (it marked itself
   * recycled before this call); they go to the next memtables.
   */
  synchronized void giveBack(List<Chunk> taken) {
    for (Chunk c : taken) {
      c.reset();
      if (users > 0) {
        free.addFirst(c); // the most recently used first: its pages are the likeliest resident
      } else {
        chunks--;
      }
    }
  }

  /**
   * Forgets the chunks of a memtable that readers may still read (its table closed): they are never
   * reused, and the collector returns their memory with the memtable.
   */
  synchronized void forget(List<Chunk> taken) {
    chunks -= taken.size();
  }
}
