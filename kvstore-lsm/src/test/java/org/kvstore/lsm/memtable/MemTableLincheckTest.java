package org.kvstore.lsm.memtable;

import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import org.jetbrains.kotlinx.lincheck.annotations.Operation;
import org.jetbrains.kotlinx.lincheck.annotations.Param;
import org.jetbrains.kotlinx.lincheck.paramgen.IntGen;
import org.junit.jupiter.api.Test;
import org.kvstore.lsm.key.ValueKind;
import org.kvstore.testkit.Lincheck;

/**
 * {@link MemTable}'s new-key path under Lincheck: an add puts a new key's chain into the hash index
 * and onto the unsorted queue, and a cursor first sorts the queued chains into the skip list. A
 * point read must find every add that completed before it, and so must a cursor, even while another
 * cursor is halfway through sorting the queue in.
 *
 * <p>As in {@code LsmTable}, an add takes its sequence number and adds under the read side of a
 * write fence, and a cursor takes its snapshot under the write side (so no add is half done then)
 * and creates the cursor after it.
 */
@Param(name = "key", gen = IntGen.class, conf = "1:3")
public class MemTableLincheckTest {
  private final MemTable mem = new MemTable();
  private final AtomicLong seq = new AtomicLong();
  private final ReentrantReadWriteLock fence = new ReentrantReadWriteLock();

  @Operation
  public void put(@Param(name = "key") int key) {
    fence.readLock().lock();
    try {
      long s = seq.incrementAndGet();
      mem.add(key(key), s, ValueKind.PUT, new byte[] {(byte) key});
    } finally {
      fence.readLock().unlock();
    }
  }

  @Operation
  public boolean contains(@Param(name = "key") int key) {
    return mem.latestValue(key(key), java.time.Clock.systemUTC()) != null;
  }

  /** The distinct keys a cursor at the current sequence number sees, in order: "1,3". */
  @Operation
  public String scan() throws java.io.IOException {
    StringBuilder sb = new StringBuilder();
    int last = -1;
    long snapshot;
    fence.writeLock().lock();
    try {
      snapshot = seq.get();
    } finally {
      fence.writeLock().unlock();
    }
    MemTable.MemTableCursor c = mem.newCursor(snapshot);
    try {
      for (c.seekToFirst(); c.isValid(); c.next()) {
        int k = c.userKey()[0];
        if (k != last) {
          sb.append(sb.length() == 0 ? "" : ",").append(k);
          last = k;
        }
      }
    } finally {
      c.close();
    }
    return sb.toString();
  }

  private static byte[] key(int key) {
    return new byte[] {(byte) key};
  }

  @Test
  void newKeys_modelChecked_seenByLaterReadsAndCursors() {
    Lincheck.modelCheck(MemTableLincheckTest.class, 2, 3);
  }

  @Test
  void newKeys_stressed_seenByLaterReadsAndCursors() {
    Lincheck.stress(MemTableLincheckTest.class, 3, 3);
  }
}
