package org.kvstore.lsm.compaction;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Properties;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.kvstore.Entry;
import org.kvstore.io.FileSystem;
import org.kvstore.io.LocalFileSystem;
import org.kvstore.lsm.LsmOptions;
import org.kvstore.lsm.bloom.BloomFormat;
import org.kvstore.lsm.key.InternalKey;
import org.kvstore.lsm.key.Lookup;
import org.kvstore.lsm.key.ValueKind;
import org.kvstore.lsm.sstable.BlockCache;
import org.kvstore.lsm.sstable.BlockCompression;
import org.kvstore.lsm.sstable.OpenFiles;
import org.kvstore.lsm.sstable.SstableFormat;
import org.kvstore.lsm.sstable.SstableWriter;
import org.kvstore.lsm.version.FileMetadata;
import org.kvstore.lsm.version.Version;
import org.kvstore.lsm.version.VersionEdit;
import org.kvstore.lsm.version.VersionSet;
import org.kvstore.spi.TableProperties;

/**
 * A compaction never resurrects an older value: an expired put it rewrites stays a tombstone while
 * something older may lie below its output level, and goes away only where nothing does.
 */
class CompactionJobExpiryTest {
  private static final long EXPIRES_AT = 1_000;
  private static final Clock AFTER_EXPIRY = Clock.fixed(Instant.ofEpochMilli(EXPIRES_AT + 1), ZoneOffset.UTC);

  @TempDir Path dir;
  private final FileSystem fs = LocalFileSystem.INSTANCE;
  private final BlockCache cache = new BlockCache(1 << 20);
  private VersionSet versions;
  private OpenFiles files;

  @AfterEach
  void close() throws IOException {
    if (versions != null) {
      versions.close();
    }
    if (files != null) {
      files.close();
    }
  }

  private static byte[] b(String s) {
    return s.getBytes(StandardCharsets.US_ASCII);
  }

  private static LsmOptions options() {
    return LsmOptions.from(TableProperties.parse("lsm", LsmOptions.PROPERTIES, new Properties()));
  }

  /** One entry written to a new SSTable: (key, seq, kind, value, version, expiry). */
  private record E(String key, long seq, ValueKind kind, String value, long version, long expiresAt) {}

  private FileMetadata sstable(E... entries) throws IOException {
    long num = versions.newFileNum();
    SstableWriter w = new SstableWriter(
        fs.open(dir.resolve(SstableFormat.fileName(num)), FileSystem.OpenMode.CREATE_NEW), 4096, 0.01,
        BlockCompression.NONE);
    for (E e : entries) {
      byte[] k = b(e.key());
      w.add(k, BloomFormat.hash(k), e.seq(), e.kind(), e.value() == null ? null : b(e.value()), e.version(),
          e.expiresAt());
    }
    SstableWriter.Result r = w.finish();
    return new FileMetadata(num, r.fileSize(), r.entries(), r.smallestKey(), r.largestKey(), r.smallestSeq(),
        r.largestSeq(), r.stats());
  }

  /** Compacts level 1's file (only) into level 2 at {@link #AFTER_EXPIRY}; returns the outputs. */
  private List<FileMetadata> compactLevel1(FileMetadata upper) throws IOException {
    Version v = versions.acquireCurrent();
    try {
      Compaction c = new Compaction(v, 1, 2, List.of(upper), v.overlapping(2, upper.smallest(), upper.largest()),
          true);
      CompactionJob job = new CompactionJob(c, fs, dir, options(), files, cache, versions::newFileNum, () -> false,
          AFTER_EXPIRY);
      VersionEdit edit = job.run();
      versions.logAndApply(edit);
      return job.outputs();
    } finally {
      v.unref();
    }
  }

  private Lookup read(FileMetadata f, String key) throws IOException {
    return f.reader(files, cache).get(b(key), InternalKey.MAX_SEQ_NUM);
  }

  private void openVersions() throws IOException {
    versions = VersionSet.open(fs, dir, 4, obsolete -> { });
    files = new OpenFiles(fs, dir, 16);
  }

  @Test
  void expiredPut_withAnOlderValueBelow_becomesATombstone() throws IOException {
    openVersions();
    FileMetadata older = sstable(new E("k", 1, ValueKind.PUT, "old", 1, Entry.NO_EXPIRY));
    FileMetadata upper = sstable(
        new E("k", 5, ValueKind.PUT, "new", 5, EXPIRES_AT),
        new E("other", 6, ValueKind.PUT, "live", 6, Entry.NO_EXPIRY));
    versions.logAndApply(new VersionEdit().addFile(3, older).addFile(1, upper));

    List<FileMetadata> out = compactLevel1(upper);

    assertThat(out).hasSize(1);
    Lookup k = read(out.get(0), "k");
    assertThat(k).as("the expired put is kept above the old value").isNotNull();
    assertThat(k.kind()).as("the expired put still hides the old value at level 3").isEqualTo(ValueKind.DELETE);
    assertThat(k.seqNum()).isEqualTo(5);
    assertThat(k.version()).isEqualTo(5);
    assertThat(read(out.get(0), "other").value()).isEqualTo(b("live"));
    assertThat(out.get(0).stats().tombstones()).isEqualTo(1);
    assertThat(out.get(0).stats().expiring()).isZero();
    assertThat(versions.current().files(2)).extracting(FileMetadata::fileNum)
        .containsExactly(out.get(0).fileNum());
    assertThat(versions.current().files(3)).containsExactly(older);
  }

  @Test
  void expiredPut_withNothingBelow_isDropped() throws IOException {
    openVersions();
    FileMetadata upper = sstable(
        new E("k", 5, ValueKind.PUT, "new", 5, EXPIRES_AT),
        new E("other", 6, ValueKind.PUT, "live", 6, EXPIRES_AT + 1));
    versions.logAndApply(new VersionEdit().addFile(1, upper));

    List<FileMetadata> out = compactLevel1(upper);

    assertThat(out).hasSize(1);
    assertThat(read(out.get(0), "k")).isNull();
    Lookup other = read(out.get(0), "other");
    assertThat(other.value()).isEqualTo(b("live"));
    assertThat(other.expiresAt()).isEqualTo(EXPIRES_AT + 1);
    assertThat(out.get(0).entries()).isEqualTo(1);
    assertThat(out.get(0).stats().expiring()).isEqualTo(1);
    assertThat(out.get(0).stats().minExpiresAt()).isEqualTo(EXPIRES_AT + 1);
  }

  @Test
  void pick_mostlyExpiredFileOfTheLastLevel_isRewrittenInPlace() throws IOException {
    openVersions();
    FileMetadata bottom = sstable(
        new E("a", 1, ValueKind.PUT, "x", 1, EXPIRES_AT),
        new E("b", 2, ValueKind.PUT, "y", 2, EXPIRES_AT),
        new E("c", 3, ValueKind.PUT, "z", 3, Entry.NO_EXPIRY));
    versions.logAndApply(new VersionEdit().addFile(3, bottom));
    Version v = versions.acquireCurrent();
    try {
      CompactionPicker before = new CompactionPicker(options(), Clock.fixed(Instant.ofEpochMilli(EXPIRES_AT),
          ZoneOffset.UTC));
      assertThat(before.pick(v)).as("nothing expired yet").isNull();
      Compaction c = new CompactionPicker(options(), AFTER_EXPIRY).pick(v);
      assertThat(c).isNotNull();
      assertThat(c.reclaim()).isTrue();
      assertThat(c.level()).isEqualTo(3);
      assertThat(c.outputLevel()).isEqualTo(3);
      assertThat(c.isTrivialMove()).isFalse();
      CompactionJob job = new CompactionJob(c, fs, dir, options(), files, cache, versions::newFileNum, () -> false,
          AFTER_EXPIRY);
      versions.logAndApply(job.run());
      assertThat(job.outputs()).hasSize(1);
      assertThat(job.outputs().get(0).entries()).isEqualTo(1);
    } finally {
      v.unref();
    }
    Version after = versions.acquireCurrent();
    try {
      assertThat(new CompactionPicker(options(), AFTER_EXPIRY).pick(after)).as("nothing left to reclaim").isNull();
    } finally {
      after.unref();
    }
  }
}
