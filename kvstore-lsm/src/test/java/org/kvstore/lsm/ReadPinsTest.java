package org.kvstore.lsm;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.kvstore.io.LocalFileSystem;
import org.kvstore.lsm.version.FileMetadata;
import org.kvstore.lsm.version.Version;
import org.kvstore.lsm.version.VersionEdit;
import org.kvstore.lsm.version.VersionSet;

/** {@link ReadPins} against reading threads that end while a scrape runs. */
class ReadPinsTest {
  @TempDir Path dir;

  private static FileMetadata file(long num) {
    return new FileMetadata(num, 100, 10, "a".getBytes(StandardCharsets.US_ASCII),
        "z".getBytes(StandardCharsets.US_ASCII), num, num);
  }

  /** One point read's pin on {@code v}, as LsmTable.read takes it: cached in the thread's slot. */
  private static void read(ReadPins pins, Version v) {
    ReadPins.Slot s = pins.enter();
    Version pinned = null;
    try {
      pinned = pins.pin(s, v);
      assertThat(pinned).isSameAs(v);
    } finally {
      pins.exit(s, pinned);
    }
  }

  /**
   * A scrape empties a reader's slot; before the scrape looks whether the reader has ended, the
   * reader pins the new version in its slot and ends. The scrape must not drop that slot with the
   * pin in it (it did: the version stayed pinned for good, and its obsolete files were never
   * deleted: LsmReadPinsTest's rare "more SSTables on disk than in the version"). The interleaving
   * is driven by the obsolete-files listener, which the scrape's release of the old version runs
   * between emptying the slot and looking at its owner.
   */
  @Test
  void readerThatEndsDuringAScrape_keepsNoPinForGood() throws Exception {
    List<Long> deleted = new CopyOnWriteArrayList<>();
    AtomicReference<Runnable> onObsolete = new AtomicReference<>(() -> {});
    VersionSet vs = VersionSet.open(LocalFileSystem.INSTANCE, dir, 2, files -> {
      files.forEach(f -> deleted.add(f.fileNum()));
      onObsolete.getAndSet(() -> {}).run();
    });
    ReadPins pins = new ReadPins();
    vs.logAndApply(new VersionEdit().addFile(0, file(10)));
    Version v1 = vs.current();

    CountDownLatch cached = new CountDownLatch(1);
    CountDownLatch readAgain = new CountDownLatch(1);
    AtomicReference<Version> v2 = new AtomicReference<>();
    Thread reader = new Thread(() -> {
      read(pins, v1); // its slot caches a pin on v1
      cached.countDown();
      try {
        readAgain.await();
      } catch (InterruptedException e) {
        throw new AssertionError(e);
      }
      read(pins, v2.get()); // its slot caches a pin on v2; then the thread ends
    }, "reader");
    reader.start();
    assertThat(cached.await(10, TimeUnit.SECONDS)).isTrue();

    // v2 replaces v1, whose last pin is now the reader's cached one.
    vs.logAndApply(new VersionEdit().deleteFile(0, 10).addFile(0, file(11)));
    v2.set(vs.current());
    onObsolete.set(() -> { // inside the scrape, after it emptied the reader's slot
      readAgain.countDown();
      try {
        reader.join(10_000);
      } catch (InterruptedException e) {
        throw new AssertionError(e);
      }
      assertThat(reader.isAlive()).isFalse();
    });
    pins.scrape(); // releases v1's cached pin: file 10 is obsolete
    assertThat(deleted).containsExactly(10L);

    pins.scrape(); // the next install's scrape releases the dead reader's pin on v2
    vs.logAndApply(new VersionEdit().deleteFile(0, 11)); // v3 replaces v2: no pin is left on it
    assertThat(deleted).as("file 11 is obsolete once v2 is replaced").containsExactly(10L, 11L);
    vs.close();
  }
}
