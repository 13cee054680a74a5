package org.kvstore.lsm.memtable;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeSet;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import org.junit.jupiter.api.Test;
import org.kvstore.lsm.cursor.InternalCursor;
import org.kvstore.lsm.key.InternalKey;
import org.kvstore.lsm.key.ValueKind;
import org.kvstore.testkit.Seeds;

/**
 * The memtable (version chains under a skip list and a hash index) against a model: a sorted set of
 * internal keys, which is what the memtable must behave as for point reads at any snapshot,
 * cursors, seeks, and concurrent adds.
 */
class MemTableTest {
  /** The memtable under test: values on the heap ({@link MemTableArenaModelTest}: in an arena). */
  MemTable newMemTable() {
    return new MemTable();
  }

  /**
   * Checks a memtable's size after versions were dropped: exactly {@code heapBytes} when values are
   * on the heap (a dropped version's value is subtracted); in an arena the dropped values' bytes
   * stay counted (their chunk space is freed only with the memtable), so at least that.
   */
  void assertSizeAfterDrops(MemTable mem, long heapBytes) {
    assertThat(mem.approximateBytes()).isEqualTo(heapBytes);
  }

  static byte[] b(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  /** The model's newest entry of {@code key} at or below {@code snapshot}, or null. */
  private static InternalKey modelGet(TreeSet<InternalKey> model, byte[] key, long snapshot) {
    InternalKey k = model.ceiling(InternalKey.seekKey(key, snapshot));
    return k != null && Arrays.equals(k.userKey(), key) ? k : null;
  }

  private static List<InternalKey> drain(InternalCursor c) throws Exception {
    List<InternalKey> out = new ArrayList<>();
    for (; c.isValid(); c.next()) {
      out.add(new InternalKey(c.userKey(), c.seqNum(), c.kind()));
    }
    return out;
  }

  /**
   * The cases of {@code latestValue_isThePutArray_orDeleted_orNull}: "a" put as {@code v1}, "e" put
   * empty, "d" put then deleted, "never" never written.
   */
  static void addLatestValueCases(MemTable mem, byte[] v1, byte[] empty) {
    mem.add(b("a"), 1, ValueKind.PUT, v1);
    mem.add(b("e"), 2, ValueKind.PUT, empty);
    mem.add(b("d"), 3, ValueKind.PUT, b("x"));
    mem.add(b("d"), 4, ValueKind.DELETE, null);
  }

  @Test
  void latestValue_isThePutArray_orDeleted_orNull() {
    MemTable mem = newMemTable();
    byte[] v1 = b("one");
    byte[] empty = new byte[0];
    addLatestValueCases(mem, v1, empty);
    assertThat(mem.latestValue(b("a"), java.time.Clock.systemUTC())).isSameAs(v1);
    assertThat(mem.latestValue(b("e"), java.time.Clock.systemUTC())).isSameAs(empty).isNotSameAs(MemTable.DELETED);
    assertThat(mem.latestValue(b("d"), java.time.Clock.systemUTC())).isSameAs(MemTable.DELETED);
    assertThat(mem.latestValue(b("never"), java.time.Clock.systemUTC())).isNull();
  }

  /** latestEntry's value is the caller's own (the table hands it out as the entry's value). */
  @Test
  void latestEntry_valueIsTheCallersOwn() {
    MemTable mem = newMemTable();
    byte[] v1 = b("one");
    mem.add(b("a"), 1, ValueKind.PUT, v1);
    byte[] got = mem.latestEntry(b("a")).value();
    assertThat(got).isEqualTo(v1).isNotSameAs(v1);
    got[0] = 'X';
    assertThat(mem.latestEntry(b("a")).value()).isEqualTo(b("one"));
  }

  /**
   * latestValues gives, key for key, what latestValue gives: over enough keys that the index's home
   * slots collide (linear probing past other keys), with deletes, absent keys and repeated keys, and
   * for the first n keys only.
   */
  @Test
  void latestValues_matchLatestValue_keyForKey() {
    long seed = Seeds.seed("MemTableTest.latestValues");
    Random rnd = new Random(seed);
    MemTable mem = newMemTable();
    for (int seq = 1; seq <= 40_000; seq++) {
      byte[] key = b("key:" + rnd.nextInt(20_000));
      if (rnd.nextInt(5) == 0) {
        mem.add(key, seq, ValueKind.DELETE, null);
      } else {
        mem.add(key, seq, ValueKind.PUT, b("v" + seq));
      }
    }
    for (int round = 0; round < 2_000; round++) {
      byte[][] keys = new byte[1 + rnd.nextInt(32)][];
      for (int i = 0; i < keys.length; i++) {
        keys[i] = i > 0 && rnd.nextInt(8) == 0 ? keys[i - 1] : b("key:" + rnd.nextInt(25_000));
      }
      int n = rnd.nextInt(keys.length + 1);
      byte[][] values = new byte[keys.length][];
      byte[] untouched = b("untouched");
      Arrays.fill(values, untouched);
      mem.latestValues(keys, n, values, java.time.Clock.systemUTC());
      for (int i = 0; i < keys.length; i++) {
        byte[] want = i < n ? mem.latestValue(keys[i], java.time.Clock.systemUTC()) : untouched;
        String what = String.format("seed %d round %d key %d of %d (%s)", seed, round, i, n, new String(keys[i]));
        if (want == null || want == MemTable.DELETED || want == untouched) {
          assertThat(values[i]).as(what).isSameAs(want);
        } else {
          assertThat(values[i]).as(what).isEqualTo(want); // an arena value is a copy each time
        }
      }
    }
  }

  @Test
  void pointReadsAndCursors_matchTheModel_atEverySnapshot() throws Exception {
    long seed = Seeds.seed("MemTableTest.model");
    Random rnd = new Random(seed);
    byte[] alphabet = {0x00, 0x01, 0x7F, (byte) 0x80, (byte) 0xFF};
    MemTable mem = newMemTable();
    TreeSet<InternalKey> model = new TreeSet<>();
    List<byte[]> keys = new ArrayList<>();
    for (int i = 0; i < 400; i++) {
      byte[] key = new byte[rnd.nextInt(21)]; // 0 to 20 bytes: below, at and above the 16 inline bytes
      for (int j = 0; j < key.length; j++) {
        key[j] = alphabet[rnd.nextInt(alphabet.length)];
      }
      keys.add(key);
    }
    // Sequence numbers arrive shuffled: racing writers may add an older version after a newer one.
    List<Long> seqs = new ArrayList<>();
    for (long s = 1; s <= 6_000; s++) {
      seqs.add(s);
    }
    Collections.shuffle(seqs, rnd);
    for (long seq : seqs) {
      byte[] key = keys.get(rnd.nextInt(keys.size()));
      ValueKind kind = rnd.nextInt(5) == 0 ? ValueKind.DELETE : ValueKind.PUT;
      mem.add(key, seq, kind, b("v" + seq));
      model.add(new InternalKey(key, seq, kind));
    }
    assertThat(mem.entryCount()).isEqualTo(model.size());
    assertThat(mem.maxSeqNum()).isEqualTo(6_000);
    for (long snapshot : new long[] {0, 1, 17, 2_999, 5_999, InternalKey.MAX_SEQ_NUM}) {
      for (byte[] key : keys) {
        InternalKey want = modelGet(model, key, snapshot);
        Map.Entry<InternalKey, byte[]> got = mem.get(key, snapshot);
        if (want == null) {
          assertThat(got).as("seed %d snapshot %d", seed, snapshot).isNull();
        } else {
          assertThat(got.getKey()).as("seed %d snapshot %d", seed, snapshot).isEqualTo(want);
          assertThat(got.getValue()).isEqualTo(want.kind() == ValueKind.PUT ? b("v" + want.seqNum()) : new byte[0]);
        }
      }
      List<InternalKey> visible = model.stream().filter(k -> k.seqNum() <= snapshot).toList();
      InternalCursor c = mem.newCursor(snapshot);
      c.seekToFirst();
      assertThat(drain(c)).as("seed %d snapshot %d", seed, snapshot).containsExactlyElementsOf(visible);
      for (int i = 0; i < 100; i++) {
        byte[] key = rnd.nextInt(10) == 0 ? new byte[] {0x00, (byte) 0xFF} : keys.get(rnd.nextInt(keys.size()));
        long at = 1 + rnd.nextInt(6_000);
        c.seek(key, at);
        InternalKey seekKey = InternalKey.seekKey(key, at);
        InternalKey want = visible.stream().filter(k -> k.compareTo(seekKey) >= 0).findFirst().orElse(null);
        if (want == null) {
          assertThat(c.isValid()).isFalse();
        } else {
          assertThat(new InternalKey(c.userKey(), c.seqNum(), c.kind()))
              .as("seed %d snapshot %d seek %d", seed, snapshot, at).isEqualTo(want);
        }
      }
    }
    assertThat(mem.get(b("never written"), Long.MAX_VALUE)).isNull();
  }

  /**
   * Keys that the inline 16-byte prefix cannot tell apart (trailing zero bytes, differences after
   * byte 16) are still distinct in point reads, and cursors order them unsigned-lexicographically.
   */
  @Test
  void keysEqualInTheirFirst16Bytes_stayDistinct() throws Exception {
    byte[] base = "0123456789abcdef".getBytes(StandardCharsets.UTF_8);
    List<byte[]> keys = new ArrayList<>();
    keys.add(new byte[0]);
    keys.add(new byte[] {0});
    keys.add(new byte[] {0, 0});
    keys.add(Arrays.copyOf(base, 15));
    keys.add(Arrays.copyOf(base, 16));
    keys.add(Arrays.copyOf(base, 17)); // base + one zero byte
    keys.add(Arrays.copyOf(base, 18));
    // Same prefix, same length and the same Arrays.hashCode (31 * 1 + 0 == 31 * 0 + 31): only the
    // bytes after the inline prefix tell them apart.
    byte[] collide1 = Arrays.copyOf(base, 18);
    collide1[16] = 1;
    byte[] collide2 = Arrays.copyOf(base, 18);
    collide2[17] = 31;
    assertThat(Arrays.hashCode(collide1)).isEqualTo(Arrays.hashCode(collide2));
    keys.add(collide1);
    keys.add(collide2);
    for (int last : new int[] {1, 0x7F, 0x80, 0xFF}) {
      byte[] k = Arrays.copyOf(base, 20);
      k[19] = (byte) last;
      keys.add(k);
      byte[] k2 = Arrays.copyOf(base, 17);
      k2[16] = (byte) last;
      keys.add(k2);
    }
    MemTable m = newMemTable();
    long seq = 0;
    for (byte[] k : keys) {
      // A fresh array with the same content: lookups compare contents, not identities.
      m.add(k.clone(), ++seq, ValueKind.PUT, ("v" + seq).getBytes(StandardCharsets.UTF_8));
    }
    for (int i = 0; i < keys.size(); i++) {
      Map.Entry<InternalKey, byte[]> e = m.get(keys.get(i).clone(), Long.MAX_VALUE);
      assertThat(e).as("key #%d", i).isNotNull();
      assertThat(new String(e.getValue(), StandardCharsets.UTF_8)).as("key #%d", i).isEqualTo("v" + (i + 1));
    }
    List<byte[]> sorted = new ArrayList<>(keys);
    sorted.sort(Arrays::compareUnsigned);
    List<byte[]> seen = new ArrayList<>();
    try (InternalCursor c = m.newCursor(Long.MAX_VALUE)) {
      for (c.seekToFirst(); c.isValid(); c.next()) {
        seen.add(c.userKey());
      }
    }
    assertThat(seen).hasSize(sorted.size());
    for (int i = 0; i < sorted.size(); i++) {
      assertThat(seen.get(i)).as("position %d", i).isEqualTo(sorted.get(i));
    }
  }

  @Test
  void concurrentAddsOfOneKey_keepEveryVersionInOrder() throws Exception {
    MemTable mem = newMemTable();
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
    assertThat(mem.get(key, Long.MAX_VALUE).getKey().seqNum()).isEqualTo(20_000);
    assertThat(mem.get(key, Long.MAX_VALUE).getValue()).isEqualTo(b("v20000"));
    InternalCursor c = mem.newCursor(InternalKey.MAX_SEQ_NUM);
    c.seekToFirst();
    List<InternalKey> all = drain(c);
    assertThat(all).hasSize(20_000);
    for (int i = 0; i < all.size(); i++) {
      assertThat(all.get(i).seqNum()).isEqualTo(20_000 - i);
    }
  }

  @Test
  void concurrentFirstAddsOfNewKeys_areAllSeenByReadsAndCursors() throws Exception {
    MemTable mem = newMemTable();
    int threads = 4;
    int keys = 2_000;
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    List<Future<?>> fs = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      int id = t;
      fs.add(pool.submit(() -> {
        for (int k = 0; k < keys; k++) { // every thread races to create every key
          long seq = (long) k * threads + id + 1;
          byte[] key = b("key-" + k);
          mem.add(key, seq, ValueKind.PUT, b("v" + seq));
          assertThat(mem.get(key, Long.MAX_VALUE)).as("own write visible").isNotNull();
        }
      }));
    }
    for (Future<?> f : fs) {
      f.get(60, TimeUnit.SECONDS);
    }
    pool.shutdown();
    InternalCursor c = mem.newCursor(InternalKey.MAX_SEQ_NUM);
    c.seekToFirst();
    assertThat(drain(c)).hasSize(keys * threads);
    for (int k = 0; k < keys; k++) {
      assertThat(mem.get(b("key-" + k), Long.MAX_VALUE).getKey().seqNum()).isEqualTo((long) k * threads + threads);
    }
  }

  /**
   * New keys reach the skip list only when a cursor is created: cursors made between rounds of adds
   * of new and old keys see every entry added before them, in internal-key order.
   */
  @Test
  void manyNewKeysSortedInAtOnce_comeOutInUnsignedByteOrder() throws Exception {
    // Thousands of new keys sorted in by one cursor (the radix sort's path; PrefixRadixSortTest
    // checks the sort itself), from bytes at the edges: 0x00 (a key and the same key with trailing
    // zeros have equal inline prefixes), 0x7F/0x80 (signedness), 0xFF; keys up to 24 bytes, so that
    // many share their 16 inline bytes. Every key is there once, in unsigned byte order.
    long seed = Seeds.seed("MemTableTest.radix");
    Random rnd = new Random(seed);
    byte[] alphabet = {0x00, 0x01, 0x7F, (byte) 0x80, (byte) 0xFF};
    TreeSet<byte[]> model = new TreeSet<>(Arrays::compareUnsigned);
    MemTable mem = newMemTable();
    long seq = 0;
    for (int i = 0; i < 5_000; i++) {
      byte[] key = new byte[1 + rnd.nextInt(24)];
      key[0] = 'k';
      for (int j = 1; j < key.length; j++) {
        key[j] = rnd.nextInt(4) == 0 ? alphabet[rnd.nextInt(alphabet.length)] : (byte) (rnd.nextInt(3) + '0');
      }
      if (rnd.nextInt(10) == 0 && !model.isEmpty()) {
        key = Arrays.copyOf(model.first(), model.first().length + 1 + rnd.nextInt(3)); // trailing zeros
      }
      model.add(key);
      mem.add(key, ++seq, ValueKind.PUT, b("v" + seq));
    }
    List<byte[]> seen = new ArrayList<>();
    try (InternalCursor c = mem.newCursor(InternalKey.MAX_SEQ_NUM)) {
      for (c.seekToFirst(); c.isValid(); c.next()) {
        if (seen.isEmpty() || !Arrays.equals(seen.get(seen.size() - 1), c.userKey())) {
          seen.add(c.userKey()); // a key added again has a version per add, newest first
        }
      }
    }
    List<byte[]> want = new ArrayList<>(model);
    assertThat(seen).as("seed %d", seed).hasSize(want.size());
    for (int i = 0; i < want.size(); i++) {
      assertThat(seen.get(i)).as("seed %d position %d", seed, i).isEqualTo(want.get(i));
    }
  }

  @Test
  void cursorsBetweenRoundsOfNewKeys_seeEveryEarlierAdd_inOrder() throws Exception {
    long seed = Seeds.seed("MemTableTest.rounds");
    Random rnd = new Random(seed);
    MemTable mem = newMemTable();
    TreeSet<InternalKey> model = new TreeSet<>();
    long seq = 0;
    for (int round = 0; round < 30; round++) {
      int adds = 1 + rnd.nextInt(300);
      for (int i = 0; i < adds; i++) {
        byte[] key = b("k" + rnd.nextInt(3_000)); // new keys and keys already sorted in
        seq++;
        mem.add(key, seq, ValueKind.PUT, b("v" + seq));
        model.add(new InternalKey(key, seq, ValueKind.PUT));
      }
      InternalCursor c = mem.newCursor(InternalKey.MAX_SEQ_NUM);
      c.seekToFirst();
      assertThat(drain(c)).as("seed %d round %d", seed, round).containsExactlyElementsOf(model);
      byte[] probe = b("k" + rnd.nextInt(3_000));
      c.seek(probe, InternalKey.MAX_SEQ_NUM);
      InternalKey want = model.ceiling(InternalKey.seekKey(probe, InternalKey.MAX_SEQ_NUM));
      if (want == null) {
        assertThat(c.isValid()).isFalse();
      } else {
        assertThat(new InternalKey(c.userKey(), c.seqNum(), c.kind())).as("seed %d round %d", seed, round).isEqualTo(want);
      }
    }
  }

  /**
   * Writers add new keys while other threads create cursors: every key whose add had returned
   * before a cursor was created is in that cursor, also when two cursors sort the queued keys in at
   * the same time (each check seeks to the writers' latest keys and a random sample of the earlier
   * ones; a cursor that started while another one's sorted keys were only half in misses a run of
   * them).
   */
  @Test
  void cursorsCreatedDuringAddsOfNewKeys_seeEveryAddThatReturnedBefore() throws Exception {
    long seed = Seeds.seed("MemTableTest.cursorsDuringAdds");
    MemTable mem = newMemTable();
    int writers = 2;
    int perWriter = 200_000;
    AtomicIntegerArray done = new AtomicIntegerArray(writers);
    ExecutorService pool = Executors.newFixedThreadPool(writers + 2);
    List<Future<?>> fs = new ArrayList<>();
    for (int w = 0; w < writers; w++) {
      int id = w;
      fs.add(pool.submit(() -> {
        for (int k = 0; k < perWriter; k++) {
          mem.add(b("w" + id + "-" + k), (long) k * writers + id + 1, ValueKind.PUT, b("v"));
          done.set(id, k + 1); // after the add returned
        }
      }));
    }
    AtomicInteger checks = new AtomicInteger();
    for (int r = 0; r < 2; r++) {
      Random rnd = new Random(seed + r);
      fs.add(pool.submit(() -> {
        for (;;) {
          int[] before = new int[writers];
          boolean finished = true;
          for (int w = 0; w < writers; w++) {
            before[w] = done.get(w);
            finished &= before[w] == perWriter;
          }
          if (finished) {
            break;
          }
          InternalCursor c = mem.newCursor(InternalKey.MAX_SEQ_NUM);
          for (int w = 0; w < writers; w++) {
            for (int i = 0; i < 64 && before[w] > 0; i++) {
              int k = i < 16 ? Math.max(0, before[w] - 1 - i) : rnd.nextInt(before[w]);
              byte[] key = b("w" + w + "-" + k);
              c.seek(key, InternalKey.MAX_SEQ_NUM);
              assertThat(c.isValid() && Arrays.equals(c.userKey(), key))
                  .as("seed %d: writer %d key %d of %d returned before the cursor", seed, w, k, before[w])
                  .isTrue();
            }
          }
          checks.incrementAndGet();
        }
        return null; // a Callable: the cursor's methods throw IOException
      }));
    }
    for (Future<?> f : fs) {
      f.get(120, TimeUnit.SECONDS);
    }
    pool.shutdown();
    assertThat(checks.get()).isPositive();
    InternalCursor c = mem.newCursor(InternalKey.MAX_SEQ_NUM);
    c.seekToFirst();
    assertThat(drain(c)).hasSize(writers * perWriter);
  }

  /** The newest visible entry of each key, in key order: what a user's cursor reads. */
  private static List<InternalKey> newestPerKey(List<InternalKey> internalOrder) {
    List<InternalKey> out = new ArrayList<>();
    for (InternalKey k : internalOrder) {
      if (out.isEmpty() || !Arrays.equals(out.get(out.size() - 1).userKey(), k.userKey())) {
        out.add(k);
      }
    }
    return out;
  }

  @Test
  void droppingOldVersions_keepsWhatEveryOpenSnapshotSees() throws Exception {
    long seed = Seeds.seed("MemTableTest.drop");
    Random rnd = new Random(seed);
    MemTable mem = newMemTable();
    TreeSet<InternalKey> model = new TreeSet<>();
    TreeSet<Long> open = new TreeSet<>();
    List<byte[]> keys = new ArrayList<>();
    for (int i = 0; i < 50; i++) {
      keys.add(b("k" + i));
    }
    for (long seq = 1; seq <= 20_000; seq++) {
      if (rnd.nextInt(200) == 0) {
        open.add(seq - 1); // a cursor opens: its snapshot is everything added so far
      }
      if (!open.isEmpty() && rnd.nextInt(150) == 0) {
        List<Long> live = new ArrayList<>(open); // a cursor closes
        open.remove(live.get(rnd.nextInt(live.size())));
      }
      byte[] key = keys.get(rnd.nextInt(keys.size()));
      ValueKind kind = rnd.nextInt(6) == 0 ? ValueKind.DELETE : ValueKind.PUT;
      mem.add(key, seq, kind, b("v" + seq), open.isEmpty() ? Long.MAX_VALUE : open.first());
      model.add(new InternalKey(key, seq, kind));
      if (seq % 997 == 0 || seq == 20_000) {
        List<Long> snapshots = new ArrayList<>(open);
        snapshots.add(InternalKey.MAX_SEQ_NUM);
        for (long snapshot : snapshots) {
          for (byte[] k : keys) {
            InternalKey want = modelGet(model, k, snapshot);
            Map.Entry<InternalKey, byte[]> got = mem.get(k, snapshot);
            assertThat(got == null ? null : got.getKey()).as("seed %d seq %d snapshot %d", seed, seq, snapshot)
                .isEqualTo(want);
          }
          InternalCursor c = mem.newCursor(snapshot);
          c.seekToFirst();
          List<InternalKey> visible = model.stream().filter(k -> k.seqNum() <= snapshot).toList();
          assertThat(newestPerKey(drain(c))).as("seed %d seq %d snapshot %d", seed, seq, snapshot)
              .containsExactlyElementsOf(newestPerKey(visible));
        }
      }
    }
    // Every cursor closed: the next write of each key leaves that key one version, and the size
    // counts exactly what is kept.
    long seq = 20_000;
    long expectBytes = 0;
    for (byte[] k : keys) {
      mem.add(k, ++seq, ValueKind.PUT, b("last"), Long.MAX_VALUE);
      expectBytes += MemTable.KEY_OVERHEAD + k.length + MemTable.VERSION_OVERHEAD + 4;
    }
    assertThat(mem.entryCount()).isEqualTo(keys.size());
    assertSizeAfterDrops(mem, expectBytes);
    InternalCursor c = mem.newCursor(InternalKey.MAX_SEQ_NUM);
    c.seekToFirst();
    assertThat(drain(c)).hasSize(keys.size());
  }

  @Test
  void droppingOldVersions_withRacingOutOfOrderAdds_keepsTheNewest() throws Exception {
    MemTable mem = newMemTable();
    byte[] key = b("hot");
    int threads = 4;
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    List<Future<?>> fs = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      int id = t;
      fs.add(pool.submit(() -> {
        for (long i = 0; i < 20_000; i++) {
          long seq = i * threads + id + 1;
          mem.add(key, seq, ValueKind.PUT, b("v" + seq), Long.MAX_VALUE);
          Map.Entry<InternalKey, byte[]> e = mem.get(key, Long.MAX_VALUE);
          assertThat(e.getKey().seqNum()).isGreaterThanOrEqualTo(seq);
        }
      }));
    }
    for (Future<?> f : fs) {
      f.get(60, TimeUnit.SECONDS);
    }
    pool.shutdown();
    assertThat(mem.get(key, Long.MAX_VALUE).getKey().seqNum()).isEqualTo(80_000);
    assertThat(mem.entryCount()).isEqualTo(1);
    assertSizeAfterDrops(mem, MemTable.KEY_OVERHEAD + 3 + MemTable.VERSION_OVERHEAD + b("v80000").length);
  }

  @Test
  void reportMark_firstWriteReports_thenOneCallerPerStep_evenWhenSizesArriveOutOfOrder() throws Exception {
    MemTable m = newMemTable();
    assertThat(m.passedReportMark(10, 100)).as("the first write reports").isTrue();
    assertThat(m.passedReportMark(60, 100)).isFalse();
    assertThat(m.passedReportMark(110, 100)).as("a step past the last report").isTrue();
    assertThat(m.passedReportMark(150, 100)).isFalse();
    assertThat(m.passedReportMark(209, 100)).isFalse();
    assertThat(m.passedReportMark(210, 100)).isTrue();
    // A stale, smaller size from a slow writer neither reports nor moves the mark back.
    assertThat(m.passedReportMark(120, 100)).isFalse();
    assertThat(m.passedReportMark(310, 100)).isTrue();
    // Another memtable (the one after a switch) has a mark of its own, whatever this one's is.
    MemTable next = newMemTable();
    assertThat(next.passedReportMark(5, 100)).isTrue();

    // Racing writers at the same size: exactly one reports.
    MemTable raced = newMemTable();
    raced.passedReportMark(0, 1_000);
    ExecutorService pool = Executors.newFixedThreadPool(4);
    try {
      List<Future<Boolean>> calls = new ArrayList<>();
      for (int t = 0; t < 4; t++) {
        calls.add(pool.submit(() -> raced.passedReportMark(1_000, 1_000)));
      }
      int reported = 0;
      for (Future<Boolean> f : calls) {
        reported += f.get(10, TimeUnit.SECONDS) ? 1 : 0;
      }
      assertThat(reported).isEqualTo(1);
    } finally {
      pool.shutdownNow();
    }
  }
}
