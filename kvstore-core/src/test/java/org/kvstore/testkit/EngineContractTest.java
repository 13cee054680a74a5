package org.kvstore.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.lang.reflect.Constructor;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.ArgumentsProvider;
import org.junit.jupiter.params.provider.ArgumentsSource;
import org.kvstore.Cursor;
import org.kvstore.Entry;
import org.kvstore.InvalidArgumentException;
import org.kvstore.PutOptions;
import org.kvstore.WriteResult;
import org.kvstore.KVStore;
import org.kvstore.StoreOptions;
import org.kvstore.Table;
import org.kvstore.WriteBatch;

/**
 * The contract every table engine passes, run through the public {@link KVStore} API. An engine
 * module subclasses it and names its engine; it may shrink sizes through {@link #tableProperties()}
 * so that flushes, splits and evictions happen within the test's data.
 *
 * <p>Randomized tests print their seed and take {@code -Dkvstore.seed=N} to reproduce; sizes grow
 * under the long-run profiles ({@link TestScale}).
 */
public abstract class EngineContractTest {
  protected static final String DB = "kit";
  protected static final String TABLE = "t";
  /** The table of the randomized model test, created with the option set under test. */
  protected static final String MODEL_TABLE = "model";

  @TempDir protected Path dir;
  /** The store's clock: the randomized test moves it, so entries expire between operations. */
  protected final FakeClock clock = FakeClock.atDefaultStart();
  protected KVStore store;
  protected Table table;

  /** The engine under test. */
  protected abstract String engineName();

  /** Properties of the table under test (small sizes exercise more of the engine). */
  protected Properties tableProperties() {
    return new Properties();
  }

  /**
   * Store options for the test. The kit writes with durability {@code none}: it checks what an
   * engine stores and returns, not fsyncs (the crash and power-loss contracts check durability), and
   * 100,000 fsynced writes would dominate the build's time.
   */
  protected StoreOptions.Builder storeOptions(StoreOptions.Builder builder) {
    return builder.durability(org.kvstore.Durability.NONE).clock(clock);
  }

  /** Whether the engine keeps data across close and reopen. */
  protected boolean durable() {
    return store.tableInfo(DB, TABLE).durability() != null;
  }

  @Test
  void durableEngine_tablesTakeTheStoreDurabilityUnlessTheirPropertySaysOtherwise() {
    assumeTrue(durable(), "the engine keeps nothing across a reopen: it has no durability");
    assertThat(store.tableInfo(DB, TABLE).durability()).isEqualTo(store.options().durability());
    Properties p = tableProperties();
    p.put("durability", "periodic");
    store.createTable(DB, "periodic", engineName(), p);
    assertThat(store.tableInfo(DB, "periodic").durability()).isEqualTo(org.kvstore.Durability.PERIODIC);
    assertThat(store.tableInfo(DB, "periodic").properties()).containsEntry("durability", "periodic");
  }

  @BeforeEach
  void openStore() {
    store = KVStore.open(dir, storeOptions(StoreOptions.builder()).build());
    store.createDB(DB);
    store.createTable(DB, TABLE, engineName(), tableProperties());
    table = store.table(DB, TABLE);
  }

  @AfterEach
  void closeStore() {
    if (store != null) {
      store.close();
    }
  }

  /** Closes and reopens the store; returns the reopened table handle. */
  protected Table reopen() {
    store.close();
    store = KVStore.open(dir, storeOptions(StoreOptions.builder()).build());
    table = store.table(DB, TABLE);
    return table;
  }

  protected static byte[] b(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  protected static String s(byte[] b) {
    return b == null ? null : new String(b, StandardCharsets.UTF_8);
  }

  /** All entries of a scan, in order. */
  protected static List<Map.Entry<byte[], byte[]>> scanAll(Table t, byte[] from, byte[] to, int limit) {
    List<Map.Entry<byte[], byte[]>> out = new ArrayList<>();
    try (Cursor c = t.scan(from, to, limit)) {
      while (c.next()) {
        out.add(Map.entry(c.key(), c.value()));
      }
    }
    return out;
  }

  // ---- basic operations ----

  @Test
  void put_thenGet_returnsValue() {
    table.put(b("k1"), b("v1"));
    assertThat(s(table.get(b("k1")))).isEqualTo("v1");
    assertThat(table.get(b("missing"))).isNull();
  }

  @Test
  void put_existingKey_overwrites() {
    table.put(b("k"), b("first"));
    table.put(b("k"), b("second, longer than the first"));
    table.put(b("k"), b("3"));
    assertThat(s(table.get(b("k")))).isEqualTo("3");
    assertThat(table.info().entryEstimate()).isBetween(1L, 3L);
  }

  @Test
  void remove_presentAndMissing_reportsWhetherItExisted() {
    table.put(b("k"), b("v"));
    assertThat(table.remove(b("k"))).isTrue();
    assertThat(table.get(b("k"))).isNull();
    assertThat(table.remove(b("k"))).isFalse();
    assertThat(table.remove(b("never"))).isFalse();
    table.put(b("k"), b("again"));
    assertThat(s(table.get(b("k")))).isEqualTo("again");
  }

  @Test
  void emptyValue_isStoredAndDistinctFromMissing() {
    table.put(b("empty"), new byte[0]);
    assertThat(table.get(b("empty"))).isNotNull().isEmpty();
    assertThat(scanAll(table, null, null, 0)).hasSize(1);
  }

  @Test
  void callerArrays_mayBeReusedAfterPut() {
    byte[] key = b("key");
    byte[] value = b("value");
    table.put(key, value);
    value[0] = 'X';
    byte[] got = table.get(b("key"));
    assertThat(s(got)).isEqualTo("value");
    got[0] = 'Y';
    assertThat(s(table.get(b("key")))).isEqualTo("value");
  }

  /**
   * getReadOnly sees what get sees, from the write buffer and after a flush (twice: the second read
   * may come from a row cache), and a caller changing get's copy changes neither.
   */
  @Test
  void getReadOnly_matchesGet_andGetsCopyStaysTheCallers() {
    table.put(b("a"), b("alpha"));
    table.put(b("gone"), b("x"));
    table.remove(b("gone"));
    for (int round = 0; round < 3; round++) {
      assertThat(s(table.getReadOnly(b("a")))).as("round %d", round).isEqualTo("alpha");
      assertThat(table.getReadOnly(b("gone"))).as("round %d", round).isNull();
      assertThat(table.getReadOnly(b("never"))).as("round %d", round).isNull();
      byte[] copy = table.get(b("a"));
      copy[0] = 'X';
      assertThat(s(table.getReadOnly(b("a")))).as("round %d", round).isEqualTo("alpha");
      assertThat(s(table.get(b("a")))).as("round %d", round).isEqualTo("alpha");
      table.flush();
    }
  }

  /**
   * multiGetReadOnly answers each key as getReadOnly does (present, removed, never written, the same
   * key twice), from the write buffer and after a flush, and checks its arguments like a get.
   */
  @Test
  void multiGetReadOnly_answersEachKeyAsGetReadOnly() {
    table.put(b("a"), b("alpha"));
    table.put(b("b"), b(""));
    table.put(b("gone"), b("x"));
    table.remove(b("gone"));
    byte[][] keys = {b("a"), b("never"), b("b"), b("gone"), b("a")};
    for (int round = 0; round < 3; round++) {
      byte[][] values = new byte[keys.length][];
      table.multiGetReadOnly(keys, values);
      assertThat(s(values[0])).as("round %d", round).isEqualTo("alpha");
      assertThat(values[1]).as("round %d", round).isNull();
      assertThat(s(values[2])).as("round %d", round).isEmpty();
      assertThat(values[3]).as("round %d", round).isNull();
      assertThat(s(values[4])).as("round %d", round).isEqualTo("alpha");
      table.multiGetReadOnly(new byte[0][], new byte[0][]);
      table.flush();
    }
    assertThatThrownBy(() -> table.multiGetReadOnly(keys, new byte[2][]))
        .isInstanceOf(InvalidArgumentException.class)
        .hasMessageContaining("5 keys but 2 slots");
    assertThatThrownBy(() -> table.multiGetReadOnly(new byte[][] {b("a"), new byte[0]}, new byte[2][]))
        .isInstanceOf(InvalidArgumentException.class)
        .hasMessageContaining("key");
  }

  @Test
  void binaryKeys_areOrderedByUnsignedBytes() {
    byte[][] keys = {
      {(byte) 0xFF}, {0x00}, {0x00, 0x00}, {0x7F}, {(byte) 0x80}, {0x01, (byte) 0xFF},
      {(byte) 0xFF, (byte) 0xFF, 0x00}, {0x00, (byte) 0xFF}, {0x41}, {0x41, 0x00},
    };
    for (int i = 0; i < keys.length; i++) {
      table.put(keys[i], new byte[] {(byte) i, 0x00, (byte) 0xFF});
    }
    byte[][] sorted = keys.clone();
    Arrays.sort(sorted, Arrays::compareUnsigned);
    List<Map.Entry<byte[], byte[]>> all = scanAll(table, null, null, 0);
    assertThat(all).hasSize(keys.length);
    for (int i = 0; i < sorted.length; i++) {
      assertThat(all.get(i).getKey()).isEqualTo(sorted[i]);
    }
    for (int i = 0; i < keys.length; i++) {
      assertThat(table.get(keys[i])).isEqualTo(new byte[] {(byte) i, 0x00, (byte) 0xFF});
    }
  }

  @Test
  void keyAndValueLimits_areEnforcedWithSpecificErrors() {
    assertThatThrownBy(() -> table.put(new byte[0], b("v")))
        .isInstanceOf(InvalidArgumentException.class)
        .hasMessageContaining("key");
    assertThatThrownBy(() -> table.put(new byte[store.options().maxKeyBytes() + 1], b("v")))
        .isInstanceOf(InvalidArgumentException.class)
        .hasMessageContaining("invalid key: must be 1 to");
    assertThatThrownBy(() -> table.put(b("k"), null)).isInstanceOf(InvalidArgumentException.class);
    assertThatThrownBy(() -> table.get((byte[]) null)).isInstanceOf(InvalidArgumentException.class);
    byte[] maxKey = new byte[store.options().maxKeyBytes()];
    Arrays.fill(maxKey, (byte) 'm');
    table.put(maxKey, b("longest key"));
    assertThat(s(table.get(maxKey))).isEqualTo("longest key");
  }

  // ---- scans ----

  @Test
  void scan_withOpenAndClosedBoundsAndLimits_matchesModel() {
    TreeMap<byte[], byte[]> model = new TreeMap<>(Arrays::compareUnsigned);
    for (int i = 0; i < 500; i++) {
      byte[] k = b(String.format("key%04d", i * 2));
      table.put(k, b("v" + i));
      model.put(k, b("v" + i));
    }
    byte[][] bounds = {null, b("key"), b("key0000"), b("key0001"), b("key0500"), b("key0998"), b("key1"), b("zzz")};
    int[] limits = {0, 1, 7, 1000};
    for (byte[] from : bounds) {
      for (byte[] to : bounds) {
        for (int limit : limits) {
          List<Map.Entry<byte[], byte[]>> got = scanAll(table, from, to, limit);
          List<byte[]> expected = expectedKeys(model, from, to, limit);
          assertThat(got.size())
              .as("scan [%s, %s) limit %d", s(from), s(to), limit)
              .isEqualTo(expected.size());
          for (int i = 0; i < expected.size(); i++) {
            assertThat(got.get(i).getKey()).isEqualTo(expected.get(i));
            assertThat(got.get(i).getValue()).isEqualTo(model.get(expected.get(i)));
          }
        }
      }
    }
  }

  private static List<byte[]> expectedKeys(TreeMap<byte[], byte[]> model, byte[] from, byte[] to, int limit) {
    List<byte[]> out = new ArrayList<>();
    for (byte[] k : model.keySet()) {
      if (from != null && Arrays.compareUnsigned(k, from) < 0) {
        continue;
      }
      if (to != null && Arrays.compareUnsigned(k, to) >= 0) {
        break;
      }
      if (limit > 0 && out.size() >= limit) {
        break;
      }
      out.add(k);
    }
    return out;
  }

  @Test
  void scan_doesNotShowRemovedKeys() {
    for (int i = 0; i < 100; i++) {
      table.put(b(String.format("k%03d", i)), b("v"));
    }
    for (int i = 0; i < 100; i += 2) {
      table.remove(b(String.format("k%03d", i)));
    }
    List<Map.Entry<byte[], byte[]>> all = scanAll(table, null, null, 0);
    assertThat(all).hasSize(50);
    assertThat(all).allSatisfy(e -> assertThat(Integer.parseInt(s(e.getKey()).substring(1)) % 2).isEqualTo(1));
  }

  @Test
  @Timeout(120)
  void scan_whileWritersChangeTheTable_seesEachKeyAtMostOnceInOrder() throws Exception {
    int keys = 2000;
    for (int i = 0; i < keys; i++) {
      table.put(b(String.format("k%05d", i)), b("initial"));
    }
    AtomicBoolean stop = new AtomicBoolean();
    ExecutorService writers = Executors.newFixedThreadPool(2);
    List<Future<?>> futures = new ArrayList<>();
    long seed = Seeds.seed(getClass().getSimpleName() + ".scan_whileWritersChangeTheTable_seesEachKeyAtMostOnceInOrder");
    for (int w = 0; w < 2; w++) {
      int id = w;
      futures.add(writers.submit(() -> {
        Random rnd = new Random(seed + id);
        while (!stop.get()) {
          byte[] k = b(String.format("k%05d", rnd.nextInt(keys * 2)));
          if (rnd.nextInt(4) == 0) {
            table.remove(k);
          } else {
            table.put(k, b("w" + id + "-" + rnd.nextInt(1000)));
          }
        }
        return null;
      }));
    }
    try {
      for (int round = 0; round < 20; round++) {
        byte[] previous = null;
        try (Cursor c = table.scan(null, null, 0)) {
          while (c.next()) {
            byte[] k = c.key();
            assertThat(c.value()).isNotNull();
            if (previous != null) {
              assertThat(Arrays.compareUnsigned(previous, k)).as("keys strictly ascending").isNegative();
            }
            previous = k;
          }
        }
      }
    } finally {
      stop.set(true);
      writers.shutdown();
      assertThat(writers.awaitTermination(60, TimeUnit.SECONDS)).isTrue();
    }
    for (Future<?> f : futures) {
      f.get();
    }
  }

  // ---- batches ----

  @Test
  void batch_appliesAllMutationsInOrder() {
    table.put(b("gone"), b("x"));
    WriteBatch batch = new WriteBatch()
        .put(b("a"), b("1"))
        .put(b("b"), b("2"))
        .remove(b("gone"))
        .put(b("a"), b("overwritten in the same batch"))
        .put(b("c"), b("3"))
        .remove(b("c"));
    table.write(batch);
    assertThat(s(table.get(b("a")))).isEqualTo("overwritten in the same batch");
    assertThat(s(table.get(b("b")))).isEqualTo("2");
    assertThat(table.get(b("gone"))).isNull();
    assertThat(table.get(b("c"))).isNull();
  }

  @Test
  void batch_withAnInvalidMutation_appliesNothing() {
    WriteBatch batch = new WriteBatch().put(b("ok1"), b("1")).put(new byte[0], b("bad key")).put(b("ok2"), b("2"));
    assertThatThrownBy(() -> table.write(batch)).isInstanceOf(InvalidArgumentException.class);
    assertThat(table.get(b("ok1"))).isNull();
    assertThat(table.get(b("ok2"))).isNull();
  }

  @Test
  void batch_repeatedOnAPairOfKeys_leavesThemEqualAfterEveryBatch() {
    for (int i = 0; i < 200; i++) {
      byte[] v = b("gen" + i);
      table.write(new WriteBatch().put(b("pair-a"), v).put(b("pair-b"), v));
      assertThat(table.get(b("pair-a"))).isEqualTo(v);
      assertThat(table.get(b("pair-b"))).isEqualTo(v);
      if (i % 50 == 49) {
        table.flush();
      }
    }
  }

  @Test
  void update_readModifyWrite_isAtomicUnderConcurrency() throws Exception {
    byte[] counter = b("counter");
    int threads = 8;
    int perThread = 500;
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    CountDownLatch start = new CountDownLatch(1);
    List<Future<?>> futures = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      futures.add(pool.submit(() -> {
        start.await();
        for (int i = 0; i < perThread; i++) {
          table.update(List.of(counter), current -> {
            long n = current[0] == null ? 0 : Long.parseLong(s(current[0]));
            return new WriteBatch().put(counter, b(Long.toString(n + 1)));
          });
        }
        return null;
      }));
    }
    start.countDown();
    for (Future<?> f : futures) {
      f.get(120, TimeUnit.SECONDS);
    }
    pool.shutdown();
    assertThat(s(table.get(counter))).isEqualTo(Integer.toString(threads * perThread));
    assertThatThrownBy(() -> table.update(List.of(b("x")), c -> new WriteBatch().put(b("y"), b("1"))))
        .isInstanceOf(InvalidArgumentException.class)
        .hasMessageContaining("'y'");
  }

  /** An update of many keys (MSETNX of thousands) may write them all, and no key it did not read. */
  @Test
  void update_ofManyKeys_writesThemAll_andRefusesAKeyNotRead() {
    List<byte[]> keys = new ArrayList<>();
    for (int i = 0; i < 5000; i++) {
      keys.add(b("many:" + i));
    }
    table.update(keys, current -> {
      WriteBatch batch = new WriteBatch();
      for (int i = 0; i < current.length; i++) {
        assertThat(current[i]).isNull();
        batch.put(keys.get(i), b("v" + i));
      }
      return batch;
    });
    assertThat(s(table.get(b("many:0")))).isEqualTo("v0");
    assertThat(s(table.get(b("many:4999")))).isEqualTo("v4999");
    assertThatThrownBy(() -> table.update(keys, c -> new WriteBatch().put(b("many:1"), b("x")).put(b("stray"), b("y"))))
        .isInstanceOf(InvalidArgumentException.class)
        .hasMessageContaining("'stray'");
    assertThat(s(table.get(b("many:1")))).isEqualTo("v1");
  }

  // ---- large values ----

  @Test
  @Timeout(120)
  void largeValues_ofSeveralMiB_roundTrip() {
    Random rnd = new Random(42);
    byte[] big = new byte[4 << 20];
    rnd.nextBytes(big);
    byte[] big2 = new byte[(4 << 20) + 12345];
    rnd.nextBytes(big2);
    table.put(b("big"), big);
    table.put(b("big2"), big2);
    table.put(b("small"), b("s"));
    assertThat(table.get(b("big"))).isEqualTo(big);
    assertThat(table.get(b("big2"))).isEqualTo(big2);
    table.flush();
    assertThat(table.get(b("big"))).isEqualTo(big);
    List<Map.Entry<byte[], byte[]>> all = scanAll(table, null, null, 0);
    assertThat(all).hasSize(3);
    assertThat(all.get(0).getValue()).isEqualTo(big);
    table.put(b("big"), b("now small"));
    assertThat(s(table.get(b("big")))).isEqualTo("now small");
    if (durable()) {
      reopen();
      assertThat(table.get(b("big2"))).isEqualTo(big2);
      assertThat(s(table.get(b("big")))).isEqualTo("now small");
    }
  }

  // ---- persistence ----

  @Test
  void closeAndReopen_keepsDataOfDurableEngines() {
    for (int i = 0; i < 1000; i++) {
      table.put(b("key" + i), b("value" + i));
    }
    table.remove(b("key7"));
    boolean durable = durable();
    reopen();
    if (durable) {
      for (int i = 0; i < 1000; i++) {
        assertThat(s(table.get(b("key" + i)))).isEqualTo(i == 7 ? null : "value" + i);
      }
      assertThat(scanAll(table, null, null, 0)).hasSize(999);
      table.put(b("after"), b("reopen"));
      reopen();
      assertThat(s(table.get(b("after")))).isEqualTo("reopen");
    } else {
      assertThat(scanAll(table, null, null, 0)).isEmpty();
    }
  }

  // ---- randomized differential test ----

  /**
   * The configurations the randomized model test runs with, one test each. By default one set, the
   * table under test's {@link #tableProperties()}; an engine adds the option combinations that
   * reach its other code paths (small buffers that force flushes and compactions, say).
   */
  protected List<EngineOptionSet> optionMatrix() {
    return List.of(EngineOptionSet.of("tableProperties", tableProperties()));
  }

  /** Feeds the parameterized test the option matrix of the engine test being run. */
  static final class OptionMatrix implements ArgumentsProvider {
    @Override
    public Stream<? extends Arguments> provideArguments(ExtensionContext context) throws Exception {
      // The matrix is an instance method (it may build on tableProperties()), and a parameterized
      // test's arguments are needed before its instance exists: ask a throwaway instance.
      Constructor<?> ctor = context.getRequiredTestClass().getDeclaredConstructor();
      ctor.setAccessible(true);
      EngineContractTest kit = (EngineContractTest) ctor.newInstance();
      return kit.optionMatrix().stream().map(Arguments::of);
    }
  }

  /** A key's state in the randomized test's model: value, absolute expiry (0: none), version. */
  private record ModelEntry(byte[] value, long expiresAt, long version) {}

  /** The model's entries live at the clock's current time, as a plain key-to-value map. */
  private TreeMap<byte[], byte[]> live(TreeMap<byte[], ModelEntry> model) {
    TreeMap<byte[], byte[]> out = new TreeMap<>(Arrays::compareUnsigned);
    long now = clock.millis();
    model.forEach((k, e) -> {
      if (!Entry.isExpired(e.expiresAt(), now)) {
        out.put(k, e.value());
      }
    });
    return out;
  }

  private ModelEntry liveEntry(TreeMap<byte[], ModelEntry> model, byte[] key) {
    ModelEntry e = model.get(key);
    return e == null || Entry.isExpired(e.expiresAt(), clock.millis()) ? null : e;
  }

  /**
   * Random puts (some with a time to live, some keeping the expiry, some only if absent), removes,
   * expiry changes, reads, multi-gets, batches, scans, flushes, reopens and active-expiry rounds of
   * a table with the option set's properties, on a clock that moves between operations; each result
   * is checked against a model of key to value, expiry and version (leveldb's
   * {@code DBTest.Randomized}, with expiry). Versions must equal those the writes returned and grow
   * with every write. The seed is printed; {@code -Dkvstore.seed=N} replays a run.
   */
  @ParameterizedTest(name = "{0}")
  @ArgumentsSource(OptionMatrix.class)
  @Timeout(600)
  void randomized_operationsMatchTreeMapModel(EngineOptionSet options) {
    long seed = Seeds.seed(getClass().getSimpleName() + ".randomized[" + options.name() + "]");
    Random rnd = new Random(seed);
    store.createTable(DB, MODEL_TABLE, engineName(), options.properties());
    Table t = store.table(DB, MODEL_TABLE);
    TreeMap<byte[], ModelEntry> model = new TreeMap<>(Arrays::compareUnsigned);
    int ops = TestScale.current().scaled(options.operations());
    int keySpace = 5_000;
    long lastVersion = 0;
    boolean durable = store.tableInfo(DB, MODEL_TABLE).durability() != null;
    try {
      for (int op = 0; op < ops; op++) {
        if (rnd.nextInt(4) == 0) {
          clock.advanceMillis(rnd.nextInt(40));
        }
        int kind = rnd.nextInt(100);
        byte[] key = randomKey(rnd, keySpace);
        if (kind < 30) {
          byte[] value = randomValue(rnd);
          t.put(key, value);
          long version = t.getEntry(key).version();
          assertThat(version).as("version of a put at op %d", op).isGreaterThan(lastVersion);
          lastVersion = version;
          model.put(key, new ModelEntry(value, 0, version));
        } else if (kind < 42) {
          byte[] value = randomValue(rnd);
          PutOptions o = PutOptions.defaults();
          int flavour = rnd.nextInt(4);
          if (flavour == 0) {
            o = o.ttlMillis(1 + rnd.nextInt(2_000));
          } else if (flavour == 1) {
            o = o.keepExpiry();
          } else if (flavour == 2) {
            o = o.ifAbsent().ttlMillis(1 + rnd.nextInt(2_000));
          } else {
            ModelEntry cur = liveEntry(model, key);
            o = o.ifVersion(cur != null && rnd.nextBoolean() ? cur.version() : lastVersion + 1);
          }
          ModelEntry cur = liveEntry(model, key);
          boolean holds = o.precondition().holds(cur == null ? null : new Entry(cur.value(), cur.version(), cur.expiresAt()));
          long now = clock.millis();
          WriteResult r = t.put(key, value, o);
          assertThat(r.applied()).as("put %s with a precondition at op %d", hex(key), op).isEqualTo(holds);
          if (holds) {
            assertThat(r.version()).as("version at op %d", op).isGreaterThan(lastVersion);
            lastVersion = r.version();
            long expiresAt = o.keepsExpiry() ? (cur == null ? 0 : cur.expiresAt()) : o.resolveExpiry(now, null);
            model.put(key, new ModelEntry(value, expiresAt, r.version()));
          }
        } else if (kind < 52) {
          boolean existed = t.remove(key);
          ModelEntry cur = liveEntry(model, key);
          assertThat(existed).as("remove(%s) at op %d", hex(key), op).isEqualTo(cur != null);
          model.remove(key);
        } else if (kind < 56) {
          ModelEntry cur = liveEntry(model, key);
          if (rnd.nextBoolean()) {
            long at = clock.millis() + rnd.nextInt(2_000) - 200;
            assertThat(t.expireAt(key, at)).as("expireAt(%s) at op %d", hex(key), op).isEqualTo(cur != null);
            if (cur != null) {
              if (at <= clock.millis()) {
                model.remove(key);
              } else {
                lastVersion = t.getEntry(key).version();
                model.put(key, new ModelEntry(cur.value(), at, lastVersion));
              }
            }
          } else {
            boolean had = cur != null && cur.expiresAt() != 0;
            assertThat(t.persist(key)).as("persist(%s) at op %d", hex(key), op).isEqualTo(had);
            if (had) {
              lastVersion = t.getEntry(key).version();
              model.put(key, new ModelEntry(cur.value(), 0, lastVersion));
            }
          }
        } else if (kind < 70) {
          ModelEntry want = liveEntry(model, key);
          if (rnd.nextBoolean()) {
            Entry got = t.getEntry(key);
            if (want == null) {
              assertThat(got).as("getEntry(%s) at op %d", hex(key), op).isNull();
            } else {
              assertThat(got).as("getEntry(%s) at op %d", hex(key), op).isNotNull();
              assertThat(got.value()).as("getEntry(%s).value at op %d", hex(key), op).isEqualTo(want.value());
              assertThat(got.version()).as("getEntry(%s).version at op %d", hex(key), op).isEqualTo(want.version());
              assertThat(got.expiresAt()).as("getEntry(%s).expiresAt at op %d", hex(key), op).isEqualTo(want.expiresAt());
            }
          } else {
            byte[] got = rnd.nextBoolean() ? t.get(key) : t.getReadOnly(key);
            assertThat(got).as("get(%s) at op %d", hex(key), op).isEqualTo(want == null ? null : want.value());
          }
        } else if (kind < 75) {
          byte[][] keys = new byte[1 + rnd.nextInt(24)][];
          for (int i = 0; i < keys.length; i++) {
            keys[i] = i > 0 && rnd.nextInt(8) == 0 ? keys[rnd.nextInt(i)] : randomKey(rnd, keySpace);
          }
          byte[][] values = new byte[keys.length][];
          t.multiGetReadOnly(keys, values);
          for (int i = 0; i < keys.length; i++) {
            ModelEntry want = liveEntry(model, keys[i]);
            assertThat(values[i]).as("multiGet key %d of %d (%s) at op %d", i, keys.length, hex(keys[i]), op)
                .isEqualTo(want == null ? null : want.value());
          }
        } else if (kind < 88) {
          WriteBatch batch = new WriteBatch();
          int n = 1 + rnd.nextInt(8);
          List<byte[]> keys = new ArrayList<>();
          List<byte[]> values = new ArrayList<>();
          List<Long> expiries = new ArrayList<>();
          for (int i = 0; i < n; i++) {
            byte[] k = randomKey(rnd, keySpace);
            keys.add(k);
            if (rnd.nextBoolean()) {
              byte[] v = randomValue(rnd);
              if (rnd.nextInt(3) == 0) {
                long at = clock.millis() + 1 + rnd.nextInt(2_000);
                batch.put(k, v, PutOptions.defaults().expireAt(at));
                expiries.add(at);
              } else {
                batch.put(k, v);
                expiries.add(0L);
              }
              values.add(v);
            } else {
              batch.remove(k);
              values.add(null);
              expiries.add(0L);
            }
          }
          t.write(batch);
          long version = -1;
          for (int i = 0; i < n; i++) {
            if (values.get(i) == null) {
              model.remove(keys.get(i));
            } else {
              model.put(keys.get(i), new ModelEntry(values.get(i), expiries.get(i), -1));
            }
          }
          for (byte[] k : keys) {
            ModelEntry e = model.get(k);
            if (version == -1 && e != null && e.version() == -1) {
              version = t.getEntry(k).version(); // every put of a batch has the batch's version
            }
          }
          if (version != -1) {
            assertThat(version).as("version of a batch at op %d", op).isGreaterThan(lastVersion);
            lastVersion = version;
          }
          for (byte[] k : keys) {
            ModelEntry e = model.get(k);
            if (e != null && e.version() == -1) {
              model.put(k, new ModelEntry(e.value(), e.expiresAt(), version));
            }
          }
        } else if (kind < 96) {
          byte[] from = rnd.nextInt(5) == 0 ? null : randomKey(rnd, keySpace);
          byte[] to = rnd.nextInt(5) == 0 ? null : randomKey(rnd, keySpace);
          int limit = rnd.nextInt(3) == 0 ? 0 : 1 + rnd.nextInt(50);
          TreeMap<byte[], byte[]> now = live(model);
          List<Map.Entry<byte[], byte[]>> got = scanAll(t, from, to, limit);
          List<byte[]> expected = expectedKeys(now, from, to, limit);
          assertThat(got).as("scan size at op %d", op).hasSize(expected.size());
          for (int i = 0; i < expected.size(); i++) {
            assertThat(got.get(i).getKey()).as("scan key at op %d", op).isEqualTo(expected.get(i));
            assertThat(got.get(i).getValue()).as("scan value at op %d", op).isEqualTo(now.get(expected.get(i)));
          }
        } else if (kind < 97) {
          store.expireNow();
        } else if (rnd.nextInt(20) == 0) {
          if (durable && rnd.nextBoolean()) {
            reopen();
            t = store.table(DB, MODEL_TABLE);
          } else {
            t.flush();
          }
        }
      }
      assertFullScanEquals(t, live(model));
      assertVersionsAndExpiries(t, model);
      options.afterRun().accept(t);
      if (durable) {
        reopen();
        t = store.table(DB, MODEL_TABLE);
        assertFullScanEquals(t, live(model));
        assertVersionsAndExpiries(t, model);
      }
    } catch (AssertionError | RuntimeException e) {
      throw new AssertionError("randomized test [" + options.name() + "] failed with seed " + seed
          + " (reproduce with -Dkvstore.seed=" + seed + "): " + e.getMessage(), e);
    }
  }

  private void assertVersionsAndExpiries(Table t, TreeMap<byte[], ModelEntry> model) {
    long now = clock.millis();
    try (Cursor c = t.scan(null, null, 0)) {
      while (c.next()) {
        ModelEntry want = model.get(c.key());
        assertThat(want).isNotNull();
        assertThat(Entry.isExpired(want.expiresAt(), now)).isFalse();
        assertThat(c.version()).as("cursor version of %s", hex(c.key())).isEqualTo(want.version());
        assertThat(c.expiresAt()).as("cursor expiry of %s", hex(c.key())).isEqualTo(want.expiresAt());
      }
    }
  }

  private static void assertFullScanEquals(Table t, TreeMap<byte[], byte[]> model) {
    List<Map.Entry<byte[], byte[]>> all = scanAll(t, null, null, 0);
    assertThat(all).hasSize(model.size());
    int i = 0;
    for (Map.Entry<byte[], byte[]> e : model.entrySet()) {
      assertThat(all.get(i).getKey()).isEqualTo(e.getKey());
      assertThat(all.get(i).getValue()).isEqualTo(e.getValue());
      i++;
    }
  }

  private static byte[] randomKey(Random rnd, int keySpace) {
    int n = rnd.nextInt(keySpace);
    switch (rnd.nextInt(4)) {
      case 0:
        return new byte[] {(byte) (n >>> 8), (byte) n};
      case 1:
        return new byte[] {(byte) 0xFF, (byte) (n >>> 8), (byte) n, 0x00};
      default:
        return ("key-" + n).getBytes(StandardCharsets.UTF_8);
    }
  }

  private static byte[] randomValue(Random rnd) {
    int len = rnd.nextInt(10) == 0 ? rnd.nextInt(4000) : rnd.nextInt(40);
    byte[] v = new byte[len];
    rnd.nextBytes(v);
    return v;
  }

  private static String hex(byte[] b) {
    StringBuilder sb = new StringBuilder();
    for (byte x : b) {
      sb.append(String.format("%02x", x));
    }
    return sb.toString();
  }

  // ---- concurrency ----

  /**
   * Large batches of overlapping keys written at once (as the server's coalesced batches of two
   * event loops are) reach the engine in one order on every key they share: each batch writes its
   * id to all its keys, so when batch A is the last writer of k1 and batch B of k2, A must not have
   * written k2 while B wrote k1 (that would put A after B on k1 and B after A on k2).
   */
  @Test
  @Timeout(300)
  void concurrentLargeBatches_onSharedKeys_applyInOneOrderOnEveryKey() throws Exception {
    long seed = Seeds.seed(getClass().getSimpleName() + ".batches");
    int threads = 6;
    int batchesPerThread = TestScale.current().scaled(300);
    int keySpace = 300;
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    CountDownLatch start = new CountDownLatch(1);
    Map<Integer, java.util.BitSet> keysOfBatch = new ConcurrentHashMap<>();
    List<Future<?>> futures = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      int id = t;
      futures.add(pool.submit(() -> {
        Random rnd = new Random(seed + id);
        start.await();
        for (int i = 0; i < batchesPerThread; i++) {
          int batchId = id * batchesPerThread + i;
          java.util.BitSet keys = new java.util.BitSet(keySpace);
          WriteBatch batch = new WriteBatch();
          byte[] v = b(Integer.toString(batchId));
          for (int n = 0; n < 100; n++) {
            int k = rnd.nextInt(keySpace);
            keys.set(k);
            batch.put(b("bk" + k), v);
          }
          keysOfBatch.put(batchId, keys);
          table.write(batch);
        }
        return null;
      }));
    }
    startAndAwait(start, futures, pool, "batch writer", seed);
    int[] last = new int[keySpace];
    for (int k = 0; k < keySpace; k++) {
      String v = s(table.get(b("bk" + k)));
      last[k] = v == null ? -1 : Integer.parseInt(v);
    }
    for (int k1 = 0; k1 < keySpace; k1++) {
      for (int k2 = 0; k2 < keySpace; k2++) {
        int a = last[k1];
        int c = last[k2];
        if (a < 0 || c < 0 || a == c) {
          continue;
        }
        boolean crossed = keysOfBatch.get(a).get(k2) && keysOfBatch.get(c).get(k1);
        assertThat(crossed)
            .as("seed %d: batch %d is last on key %d and batch %d on key %d, but each wrote both",
                seed, a, k1, c, k2)
            .isFalse();
      }
    }
    if (durable()) {
      // The order must also be the log's: replaying the log (as recovery does) gives the same values.
      Map<String, String> replayed = new java.util.HashMap<>();
      org.kvstore.wal.WalRecovery.replay(
          store.options().fileSystem(), dir.resolve("wal"), org.kvstore.RecoveryMode.POINT_IN_TIME,
          r -> {
            for (org.kvstore.spi.Mutation m : r.mutations()) {
              String k = s(m.key());
              if (k.startsWith("bk")) {
                replayed.put(k, s(m.value()));
              }
            }
          });
      assertThat(replayed).as("seed %d: the log holds the batches", seed).isNotEmpty();
      for (Map.Entry<String, String> e : replayed.entrySet()) {
        assertThat(s(table.get(b(e.getKey()))))
            .as("seed %d: key %s holds the value of its last write in log order", seed, e.getKey())
            .isEqualTo(e.getValue());
      }
    }
  }

  @Test
  @Timeout(300)
  void concurrentStress_eightThreadsOnSharedAndDistinctKeys() throws Exception {
    long seed = Seeds.seed(getClass().getSimpleName() + ".stress");
    int threads = 8;
    int opsPerThread = TestScale.current().scaled(5_000);
    int sharedKeys = 64;
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    CountDownLatch start = new CountDownLatch(1);
    // Each thread's own keys are checked exactly; shared keys must hold some thread's last write.
    List<TreeMap<String, String>> own = new ArrayList<>();
    Map<String, List<String>> lastWrites = new ConcurrentHashMap<>();
    List<Future<?>> futures = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      TreeMap<String, String> mine = new TreeMap<>();
      own.add(mine);
      int id = t;
      futures.add(pool.submit(() -> {
        Random rnd = new Random(seed + id);
        Map<String, String> myLastShared = new java.util.HashMap<>();
        start.await();
        for (int i = 0; i < opsPerThread; i++) {
          if (rnd.nextBoolean()) {
            String k = "own-" + id + "-" + rnd.nextInt(200);
            if (rnd.nextInt(5) == 0) {
              table.remove(b(k));
              mine.remove(k);
            } else {
              String v = "t" + id + "-" + i;
              table.put(b(k), b(v));
              mine.put(k, v);
            }
            assertThat(s(table.get(b(k)))).isEqualTo(mine.get(k));
          } else {
            String k = "shared-" + rnd.nextInt(sharedKeys);
            String v = "t" + id + "-" + i;
            table.put(b(k), b(v));
            myLastShared.put(k, v);
            byte[] seen = table.get(b(k));
            assertThat(seen).isNotNull();
          }
        }
        myLastShared.forEach((k, v) -> lastWrites.computeIfAbsent(k, x -> java.util.Collections.synchronizedList(new ArrayList<>())).add(v));
        return null;
      }));
    }
    startAndAwait(start, futures, pool, "stress thread", seed);
    for (int t = 0; t < threads; t++) {
      for (Map.Entry<String, String> e : own.get(t).entrySet()) {
        assertThat(s(table.get(b(e.getKey())))).as("seed %d key %s", seed, e.getKey()).isEqualTo(e.getValue());
      }
    }
    for (Map.Entry<String, List<String>> e : lastWrites.entrySet()) {
      assertThat(e.getValue()).as("seed %d: %s holds one thread's last write", seed, e.getKey())
          .contains(s(table.get(b(e.getKey()))));
    }
    long ownTotal = own.stream().mapToLong(Map::size).sum();
    assertThat(scanAll(table, b("own-"), b("own."), 0)).hasSize((int) ownTotal);
  }

  /** Releases the threads waiting on {@code start}, waits for each, fails naming the seed. */
  private static void startAndAwait(
      CountDownLatch start, List<Future<?>> futures, ExecutorService pool, String what, long seed)
      throws Exception {
    start.countDown();
    try {
      for (Future<?> f : futures) {
        try {
          f.get(240, TimeUnit.SECONDS);
        } catch (java.util.concurrent.ExecutionException e) {
          fail(what + " failed (seed " + seed + ")", e.getCause());
        }
      }
    } finally {
      pool.shutdown();
    }
  }
}
