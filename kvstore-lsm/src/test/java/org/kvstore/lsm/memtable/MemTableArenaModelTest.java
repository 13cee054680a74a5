package org.kvstore.lsm.memtable;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Clock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@link MemTableTest}'s model tests again with the values in an arena of small chunks (64 KiB, so
 * the tests' memtables take many and writers race for the next one).
 */
class MemTableArenaModelTest extends MemTableTest {
  private final MemtableArena arena = new MemtableArena(64L << 20);

  MemTableArenaModelTest() {
    arena.opened();
  }

  @AfterEach
  void closeArena() {
    arena.closed();
  }

  @Override
  MemTable newMemTable() {
    return new MemTable(arena);
  }

  @Override
  void assertSizeAfterDrops(MemTable mem, long heapBytes) {
    assertThat(mem.approximateBytes()).isGreaterThan(heapBytes);
  }

  /** The arena's counterpart: a put's value is copied out, a fresh array per read. */
  @Override
  @Test
  void latestValue_isThePutArray_orDeleted_orNull() {
    MemTable mem = newMemTable();
    byte[] v1 = b("one");
    addLatestValueCases(mem, v1, new byte[0]);
    byte[] a = mem.latestValue(b("a"), Clock.systemUTC());
    assertThat(a).isEqualTo(v1).isNotSameAs(v1);
    assertThat(mem.latestValue(b("a"), Clock.systemUTC())).isEqualTo(v1).isNotSameAs(a);
    assertThat(mem.latestValue(b("e"), Clock.systemUTC())).isEmpty();
    assertThat(mem.latestValue(b("e"), Clock.systemUTC())).isNotSameAs(MemTable.DELETED);
    assertThat(mem.latestValue(b("d"), Clock.systemUTC())).isSameAs(MemTable.DELETED);
    assertThat(mem.latestValue(b("never"), Clock.systemUTC())).isNull();
    assertThat(mem.arenaBytes()).isEqualTo(arena.chunkBytes());
  }
}
