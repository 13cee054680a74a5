package org.kvstore.bplus.buffer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.kvstore.bplus.page.OverflowPage;
import org.kvstore.io.FileSystem;
import org.kvstore.io.LocalFileSystem;

class BufferPoolTest {
  private static final int PAGE = 4096;
  @TempDir Path dir;
  private PageFile file;
  private BufferPool pool;

  @BeforeEach
  void open() throws IOException {
    file = PageFile.create(
        LocalFileSystem.INSTANCE.open(dir.resolve("p.db"), FileSystem.OpenMode.CREATE_NEW), PAGE);
    pool = new BufferPool(file, 16L * PAGE, 0.75, WriteBackGate.OPEN);
  }

  @AfterEach
  void close() throws IOException {
    file.close();
  }

  private long newPage(int tag) throws IOException {
    long id = file.allocatePage();
    try (PinnedPage p = pool.newPage(id).latchExclusive()) {
      byte[] payload = new byte[100];
      java.util.Arrays.fill(payload, (byte) tag);
      OverflowPage.init(p.data(), id, tag, 0, payload, 0, payload.length);
      p.markDirty();
    }
    return id;
  }

  private int tagOf(long id) throws IOException {
    try (PinnedPage p = pool.fetch(id).latchShared()) {
      return (int) OverflowPage.chainId(p.data());
    }
  }

  @Test
  void manyMorePagesThanFrames_evictWriteBackAndReadBack() throws IOException {
    List<Long> ids = new ArrayList<>();
    for (int i = 0; i < 200; i++) {
      ids.add(newPage(i));
    }
    for (int i = 0; i < 200; i++) {
      assertThat(tagOf(ids.get(i))).isEqualTo(i);
    }
    BufferPool.Stats s = pool.stats();
    assertThat(s.frames()).isLessThanOrEqualTo(16);
    assertThat(s.resident()).isLessThanOrEqualTo(16);
    assertThat(s.evictions()).isGreaterThanOrEqualTo(200 - 16);
    assertThat(s.writeBacks()).isGreaterThanOrEqualTo(200 - 16);
    assertThat(s.misses()).isPositive();
  }

  @Test
  void pinnedPages_areNeverEvicted() throws IOException {
    List<PinnedPage> pinned = new ArrayList<>();
    List<Long> pinnedIds = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      long id = newPage(1000 + i);
      pinnedIds.add(id);
      pinned.add(pool.fetch(id));
    }
    for (int i = 0; i < 300; i++) {
      newPage(i);
    }
    for (int i = 0; i < 5; i++) {
      PinnedPage p = pinned.get(i).latchShared();
      assertThat(OverflowPage.chainId(p.data())).isEqualTo(1000 + i);
      p.close();
    }
    long missesBefore = pool.stats().misses();
    // Still resident: re-fetching them is a hit, not a read.
    for (long id : pinnedIds) {
      tagOf(id);
    }
    assertThat(pool.stats().misses()).isEqualTo(missesBefore);
  }

  @Test
  void everyFramePinned_failsWithAClearError() throws IOException {
    List<PinnedPage> pinned = new ArrayList<>();
    for (int i = 0; i < 16; i++) {
      pinned.add(pool.fetch(newPage(i)));
    }
    long extra = file.allocatePage();
    assertThatThrownBy(() -> pool.newPage(extra))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("exhausted");
    pinned.forEach(PinnedPage::close);
    pool.newPage(extra).close();
  }

  @Test
  void threshold_leavesHeadroomFramesUnusedUntilNeeded() throws IOException {
    for (int i = 0; i < 100; i++) {
      newPage(i);
    }
    // 0.75 * 16 = 12 frames are used while victims can be found.
    assertThat(pool.stats().frames()).isEqualTo(12);
  }
}
