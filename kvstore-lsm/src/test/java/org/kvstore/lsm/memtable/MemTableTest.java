package org.kvstore.lsm.memtable;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.kvstore.lsm.key.InternalKey;
import org.kvstore.lsm.key.ValueKind;
import org.kvstore.testkit.Seeds;

/** The memtable's hash index answers latest-version reads exactly as the ordered skip list does. */
class MemTableTest {
  private static byte[] b(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private static void assertSameAsSkipList(MemTable mem, byte[] key) {
    Map.Entry<InternalKey, byte[]> viaIndex = mem.getLatest(key);
    Map.Entry<InternalKey, byte[]> viaList = mem.get(key, InternalKey.MAX_SEQ_NUM);
    if (viaList == null) {
      assertThat(viaIndex).as("key %s", new String(key, StandardCharsets.UTF_8)).isNull();
    } else {
      assertThat(viaIndex).as("key %s", new String(key, StandardCharsets.UTF_8)).isNotNull();
      assertThat(viaIndex.getKey()).isEqualTo(viaList.getKey());
      assertThat(viaIndex.getValue()).isEqualTo(viaList.getValue());
    }
  }

  @Test
  void latestRead_matchesTheSkipList_forPutsDeletesAndOutOfOrderSequenceNumbers() {
    long seed = Seeds.seed("MemTableTest.latestRead");
    Random rnd = new Random(seed);
    MemTable mem = new MemTable();
    // Sequence numbers arrive shuffled: racing writers may add an older version after a newer one.
    List<Long> seqs = new ArrayList<>();
    for (long s = 1; s <= 20_000; s++) {
      seqs.add(s);
    }
    Collections.shuffle(seqs, rnd);
    for (long seq : seqs) {
      byte[] key = b("k" + rnd.nextInt(2_000));
      if (rnd.nextInt(5) == 0) {
        mem.add(key, seq, ValueKind.DELETE, null);
      } else {
        mem.add(key, seq, ValueKind.PUT, b("v" + seq));
      }
    }
    for (int k = 0; k < 2_100; k++) {
      assertSameAsSkipList(mem, b("k" + k)); // k >= 2000 were never written
    }
    assertThat(mem.getLatest(new byte[0])).isNull();
  }

  @Test
  void cursorOrder_isInternalKeyOrder_forKeysAroundTheInlinePrefix() throws Exception {
    long seed = Seeds.seed("MemTableTest.cursorOrder");
    Random rnd = new Random(seed);
    byte[] alphabet = {0x00, 0x01, 0x7F, (byte) 0x80, (byte) 0xFF};
    MemTable mem = new MemTable();
    java.util.TreeSet<InternalKey> model = new java.util.TreeSet<>();
    for (long seq = 1; seq <= 5_000; seq++) {
      byte[] key = new byte[rnd.nextInt(21)]; // 0 to 20 bytes: below, at and above the 16 inline bytes
      for (int i = 0; i < key.length; i++) {
        key[i] = alphabet[rnd.nextInt(alphabet.length)];
      }
      ValueKind kind = rnd.nextInt(4) == 0 ? ValueKind.DELETE : ValueKind.PUT;
      mem.add(key, seq, kind, b("v"));
      model.add(new InternalKey(key, seq, kind));
    }
    List<InternalKey> seen = new ArrayList<>();
    org.kvstore.lsm.cursor.InternalCursor c = mem.newCursor(InternalKey.MAX_SEQ_NUM);
    for (c.seekToFirst(); c.isValid(); c.next()) {
      seen.add(new InternalKey(c.userKey(), c.seqNum(), c.kind()));
    }
    assertThat(seen).as("seed %d", seed).containsExactlyElementsOf(model);
    for (InternalKey k : List.copyOf(model).subList(0, 200)) {
      c.seek(k.userKey(), k.seqNum());
      assertThat(c.isValid()).isTrue();
      assertThat(new InternalKey(c.userKey(), c.seqNum(), c.kind())).isEqualTo(model.ceiling(k));
    }
  }

  @Test
  void concurrentAddsOfOneKey_leaveTheNewestInTheIndex() throws Exception {
    MemTable mem = new MemTable();
    byte[] key = b("hot");
    ExecutorService pool = Executors.newFixedThreadPool(4);
    List<Future<?>> fs = new ArrayList<>();
    for (int t = 0; t < 4; t++) {
      int id = t;
      fs.add(pool.submit(() -> {
        for (long i = 0; i < 5_000; i++) {
          long seq = i * 4 + id + 1;
          mem.add(key, seq, ValueKind.PUT, b("v" + seq));
        }
      }));
    }
    for (Future<?> f : fs) {
      f.get(60, TimeUnit.SECONDS);
    }
    pool.shutdown();
    assertThat(mem.getLatest(key).getKey().seqNum()).isEqualTo(20_000);
    assertThat(mem.getLatest(key).getValue()).isEqualTo(b("v20000"));
    assertSameAsSkipList(mem, key);
  }
}
