package org.kvstore.lsm.sstable;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.kvstore.CorruptionException;
import org.kvstore.codec.FixedLE;
import org.kvstore.io.FileSystem;
import org.kvstore.io.LocalFileSystem;
import org.kvstore.lsm.cursor.InternalCursor;
import org.kvstore.lsm.key.Lookup;
import org.kvstore.lsm.key.ValueKind;
import org.kvstore.testkit.Seeds;

class SstableTest {
  @TempDir Path dir;
  private final FileSystem fs = LocalFileSystem.INSTANCE;

  /** Writes {@code n} random entries (every 7th a delete) to file {@code num}; returns the model. */
  private TreeMap<byte[], byte[]> write(long num, int n, BlockCompression c, long seed) throws IOException {
    Random rnd = new Random(seed);
    TreeMap<byte[], byte[]> model = new TreeMap<>(Arrays::compareUnsigned);
    while (model.size() < n) {
      byte[] k = new byte[1 + rnd.nextInt(20)];
      rnd.nextBytes(k);
      byte[] v;
      if (model.size() % 7 == 3) {
        v = null;
      } else {
        // Compressible values: repeated text, so LZ4 pays.
        v = ("value-" + rnd.nextInt(1000) + "-").repeat(1 + rnd.nextInt(20)).getBytes(StandardCharsets.UTF_8);
      }
      model.put(k, v == null ? new byte[0] : v);
      if (v == null) {
        model.put(k, null);
      }
    }
    try (SstableWriter w =
        new SstableWriter(fs.open(dir.resolve(SstableFormat.fileName(num)), FileSystem.OpenMode.CREATE_NEW),
            1024, 0.01, c)) {
      long seq = 1;
      for (Map.Entry<byte[], byte[]> e : model.entrySet()) {
        if (e.getValue() == null) {
          w.add(e.getKey(), seq++, ValueKind.DELETE, null);
        } else {
          w.add(e.getKey(), seq++, ValueKind.PUT, e.getValue());
        }
      }
      w.finish();
    }
    return model;
  }

  @ParameterizedTest
  @EnumSource(BlockCompression.class)
  void writeThenRead_roundTripsEveryEntry_byLookupAndCursor(BlockCompression c) throws IOException {
    TreeMap<byte[], byte[]> model = write(1, 3000, c, 42);
    try (OpenFiles files = new OpenFiles(fs, dir, 4)) {
      SstableReader r = SstableReader.open(1, files, new BlockCache(64 << 10));
      assertThat(r.entryCount()).isEqualTo(3000);
      for (Map.Entry<byte[], byte[]> e : model.entrySet()) {
        Lookup l = r.get(e.getKey(), Long.MAX_VALUE >>> 8);
        assertThat(l).isNotNull();
        if (e.getValue() == null) {
          assertThat(l.kind()).isEqualTo(ValueKind.DELETE);
        } else {
          assertThat(l.kind()).isEqualTo(ValueKind.PUT);
          assertThat(l.value()).isEqualTo(e.getValue());
        }
      }
      assertThat(r.get(new byte[30], Long.MAX_VALUE >>> 8)).isNull();
      try (InternalCursor cur = r.newCursor(false)) {
        cur.seekToFirst();
        for (Map.Entry<byte[], byte[]> e : model.entrySet()) {
          assertThat(cur.isValid()).isTrue();
          assertThat(cur.userKey()).isEqualTo(e.getKey());
          assertThat(cur.kind()).isEqualTo(e.getValue() == null ? ValueKind.DELETE : ValueKind.PUT);
          cur.next();
        }
        assertThat(cur.isValid()).isFalse();
        byte[] mid = model.keySet().stream().skip(1500).findFirst().orElseThrow();
        cur.seek(mid, Long.MAX_VALUE >>> 8);
        assertThat(cur.userKey()).isEqualTo(mid);
      }
    }
    if (c == BlockCompression.LZ4) {
      long lz4Size = Files.size(dir.resolve(SstableFormat.fileName(1)));
      write(2, 3000, BlockCompression.NONE, 42);
      assertThat(lz4Size).isLessThan(Files.size(dir.resolve(SstableFormat.fileName(2))));
    }
  }

  @Test
  void flippedBit_inAnyDataBlock_isCorruptionNamingFileAndBlockOffset() throws IOException {
    write(1, 2000, BlockCompression.NONE, 7);
    Path p = dir.resolve(SstableFormat.fileName(1));
    byte[] good = Files.readAllBytes(p);
    long filterOffset = FixedLE.getLong(good, good.length - SstableFormat.FOOTER_BYTES);
    long seed = Seeds.seed("SstableTest.flippedBit_inAnyDataBlock_isCorruptionNamingFileAndBlockOffset");
    Random rnd = new Random(seed);
    for (int trial = 0; trial < 40; trial++) {
      int pos = rnd.nextInt((int) filterOffset);
      byte[] bad = good.clone();
      bad[pos] ^= (byte) (1 << rnd.nextInt(8));
      Files.write(p, bad);
      try (OpenFiles files = new OpenFiles(fs, dir, 4)) {
        SstableReader r = SstableReader.open(1, files, new BlockCache(0));
        assertThatThrownBy(() -> {
              try (InternalCursor c = r.newCursor(false)) {
                for (c.seekToFirst(); c.isValid(); c.next()) {
                  c.value();
                }
              }
            })
            .isInstanceOfSatisfying(CorruptionException.class, e -> {
              assertThat(e.path()).isEqualTo(p);
              assertThat(e.offset()).isBetween(pos - 1024L * 64, (long) pos);
              assertThat(e.getMessage()).contains(p.getFileName().toString()).contains("checksum");
            });
      }
    }
  }

  @Test
  void flippedBit_inFooterIndexOrFilter_failsTheOpen() throws IOException {
    write(1, 500, BlockCompression.NONE, 9);
    Path p = dir.resolve(SstableFormat.fileName(1));
    byte[] good = Files.readAllBytes(p);
    long filterOffset = FixedLE.getLong(good, good.length - SstableFormat.FOOTER_BYTES);
    for (int pos = (int) filterOffset; pos < good.length; pos += 3) {
      byte[] bad = good.clone();
      bad[pos] ^= 0x10;
      Files.write(p, bad);
      try (OpenFiles files = new OpenFiles(fs, dir, 4)) {
        assertThatThrownBy(() -> SstableReader.open(1, files, new BlockCache(0)))
            .isInstanceOf(CorruptionException.class)
            .hasMessageContaining(p.getFileName().toString());
      }
    }
  }

  @Test
  void truncatedFile_isCorruption() throws IOException {
    write(1, 100, BlockCompression.NONE, 3);
    Path p = dir.resolve(SstableFormat.fileName(1));
    byte[] good = Files.readAllBytes(p);
    Files.write(p, Arrays.copyOf(good, good.length - 10));
    try (OpenFiles files = new OpenFiles(fs, dir, 4)) {
      assertThatThrownBy(() -> SstableReader.open(1, files, new BlockCache(0)))
          .isInstanceOf(CorruptionException.class);
    }
  }

  /**
   * Keys sharing a long prefix, with zero and high bytes and differing lengths after it (the block
   * search compares 8 bytes after the index keys' common prefix inline and the rest only on a tie):
   * every key is found, absent keys are not, and seeks land on the model's ceiling key.
   */
  @Test
  void keysWithALongCommonPrefix_pointReadsAndSeeksMatchTheModel() throws IOException {
    long seed = Seeds.seed("SstableTest.keysWithALongCommonPrefix_pointReadsAndSeeksMatchTheModel");
    Random rnd = new Random(seed);
    byte[] alphabet = {0, 1, 'a', 0x7F, (byte) 0x80, (byte) 0xFF};
    byte[] prefix = "user:0000".getBytes(StandardCharsets.UTF_8);
    java.util.function.Supplier<byte[]> key = () -> {
      byte[] k = Arrays.copyOf(prefix, prefix.length + rnd.nextInt(13));
      for (int i = prefix.length; i < k.length; i++) {
        k[i] = alphabet[rnd.nextInt(alphabet.length)];
      }
      return k;
    };
    TreeMap<byte[], byte[]> model = new TreeMap<>(Arrays::compareUnsigned);
    while (model.size() < 4000) {
      byte[] k = key.get();
      model.put(k, ("v" + model.size()).getBytes(StandardCharsets.UTF_8));
    }
    try (SstableWriter w =
        new SstableWriter(fs.open(dir.resolve(SstableFormat.fileName(5)), FileSystem.OpenMode.CREATE_NEW),
            256, 0.01, BlockCompression.NONE)) {
      long seq = 1;
      for (Map.Entry<byte[], byte[]> e : model.entrySet()) {
        w.add(e.getKey(), seq++, ValueKind.PUT, e.getValue());
      }
      w.finish();
    }
    try (OpenFiles files = new OpenFiles(fs, dir, 4)) {
      SstableReader r = SstableReader.open(5, files, new BlockCache(1 << 20));
      for (Map.Entry<byte[], byte[]> e : model.entrySet()) {
        Lookup l = r.get(e.getKey(), Long.MAX_VALUE >>> 8);
        assertThat(l).as("seed %d: key %s", seed, Arrays.toString(e.getKey())).isNotNull();
        assertThat(l.value()).as("seed %d", seed).isEqualTo(e.getValue());
      }
      try (InternalCursor cur = r.newCursor(false)) {
        for (int i = 0; i < 4000; i++) {
          byte[] probe = key.get();
          int shape = rnd.nextInt(10);
          if (shape == 0) {
            probe = Arrays.copyOf(prefix, rnd.nextInt(prefix.length)); // shorter than the prefix
          } else if (shape == 1) {
            probe[rnd.nextInt(prefix.length)] += rnd.nextBoolean() ? 1 : -1; // off the prefix
          }
          if (!model.containsKey(probe)) {
            assertThat(r.get(probe, Long.MAX_VALUE >>> 8))
                .as("seed %d: absent %s", seed, Arrays.toString(probe)).isNull();
          }
          byte[] ceiling = model.ceilingKey(probe);
          cur.seek(probe, Long.MAX_VALUE >>> 8);
          if (ceiling == null) {
            assertThat(cur.isValid()).as("seed %d: seek past the end", seed).isFalse();
          } else {
            assertThat(cur.isValid()).as("seed %d", seed).isTrue();
            assertThat(cur.userKey()).as("seed %d: seek %s", seed, Arrays.toString(probe)).isEqualTo(ceiling);
          }
        }
      }
    }
  }
}
