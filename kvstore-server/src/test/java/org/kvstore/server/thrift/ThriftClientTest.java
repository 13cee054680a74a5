package org.kvstore.server.thrift;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.apache.thrift.TApplicationException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.kvstore.server.KVStoreServer;
import org.kvstore.server.TestServers;
import org.kvstore.thrift.ErrorCode;
import org.kvstore.thrift.GetResult;
import org.kvstore.thrift.InvalidArgument;
import org.kvstore.thrift.KvService;
import org.kvstore.thrift.Mutation;
import org.kvstore.thrift.MutationResult;
import org.kvstore.thrift.MutationType;
import org.kvstore.thrift.NotFound;
import org.kvstore.thrift.PreconditionFailed;
import org.kvstore.thrift.PutOptions;
import org.kvstore.thrift.ScanPage;
import org.kvstore.thrift.ScanRequest;
import org.kvstore.thrift.TableSpec;
import org.kvstore.thrift.EntryMeta;
import org.kvstore.thrift.AlreadyExists;
import redis.clients.jedis.Jedis;

/** Every KvService method through libthrift's own clients, in all four formats on the one port. */
class ThriftClientTest {
  private static final byte[] BINARY_KEY = {0x00, (byte) 0xFF, 'k', '\r', '\n'};
  private static final byte[] BINARY_VALUE = {'a', '\r', '\n', 'b', 0x00, 'c', (byte) 0xFF};

  @TempDir
  static Path dir;
  static KVStoreServer server;

  @BeforeAll
  static void start() {
    server = KVStoreServer.start(TestServers.config(dir).set("thrift-port", "0")
        .set("thrift-max-frame-size", "256kb").build());
  }

  @AfterAll
  static void stop() {
    server.close();
  }

  private static ByteBuffer b(byte[] bytes) {
    return ByteBuffer.wrap(bytes);
  }

  private static ByteBuffer b(String s) {
    return ByteBuffer.wrap(s.getBytes(StandardCharsets.UTF_8));
  }

  private static byte[] bytes(ByteBuffer buf) {
    byte[] out = new byte[buf.remaining()];
    buf.duplicate().get(out);
    return out;
  }

  @ParameterizedTest
  @EnumSource(ThriftWireFormat.class)
  void everyMethod_eachFormatOnOnePort_behavesAsTheIdlSays(ThriftWireFormat format) throws Exception {
    KvService.Client c = ThriftClients.open(server.thriftPort(), format);
    try {
      String db = "db_" + format.name().toLowerCase();
      assertThat(c.ping()).isEqualTo("pong");
      c.createDb(db, Map.of());
      assertThatThrownBy(() -> c.createDb(db, Map.of())).isInstanceOf(AlreadyExists.class);
      c.createTable(new TableSpec(db, "t").setEngine("memory"));
      assertThat(c.listDbs()).contains(db, "default");
      assertThat(c.listTables(db)).containsExactly("t");
      TableSpec spec = c.describeTable(db, "t");
      assertThat(spec.getEngine()).isEqualTo("memory");

      // put returns the new version; get returns exactly the bytes
      long v1 = c.put(db, "t", b(BINARY_KEY), b(BINARY_VALUE), null);
      assertThat(v1).isPositive();
      assertThat(bytes(c.get(db, "t", b(BINARY_KEY)))).isEqualTo(BINARY_VALUE);
      long v2 = c.put(db, "t", b(BINARY_KEY), b("second"), new PutOptions());
      assertThat(v2).isGreaterThan(v1);

      // missing key, table, database: NotFound with the code telling them apart
      assertThatThrownBy(() -> c.get(db, "t", b("missing")))
          .isInstanceOfSatisfying(NotFound.class, e -> assertThat(e.getCode()).isEqualTo(ErrorCode.KEY_NOT_FOUND));
      assertThatThrownBy(() -> c.get(db, "nope", b("k")))
          .isInstanceOfSatisfying(NotFound.class, e -> assertThat(e.getCode()).isEqualTo(ErrorCode.TABLE_NOT_FOUND));
      assertThatThrownBy(() -> c.get("nodb", "t", b("k")))
          .isInstanceOfSatisfying(NotFound.class, e -> assertThat(e.getCode()).isEqualTo(ErrorCode.DB_NOT_FOUND));
      assertThatThrownBy(() -> c.get(db, "t", b(new byte[0]))).isInstanceOf(InvalidArgument.class);

      // multiGet is positional
      List<GetResult> got = c.multiGet(db, "t", List.of(b("missing"), b(BINARY_KEY)));
      assertThat(got.get(0).isFound()).isFalse();
      assertThat(got.get(1).isFound()).isTrue();
      assertThat(got.get(1).getValue()).isEqualTo("second".getBytes(StandardCharsets.UTF_8));

      // CAS: ifVersion and ifAbsent
      long v3 = c.put(db, "t", b(BINARY_KEY), b("third"), new PutOptions().setIfVersion(v2));
      assertThat(v3).isGreaterThan(v2);
      assertThatThrownBy(() -> c.put(db, "t", b(BINARY_KEY), b("lost"), new PutOptions().setIfVersion(v2)))
          .isInstanceOfSatisfying(PreconditionFailed.class, e -> assertThat(e.getCurrentVersion()).isEqualTo(v3));
      assertThatThrownBy(() -> c.put(db, "t", b(BINARY_KEY), b("lost"), new PutOptions().setIfAbsent(true)))
          .isInstanceOf(PreconditionFailed.class);
      assertThat(c.put(db, "t", b("fresh"), b("x"), new PutOptions().setIfAbsent(true))).isPositive();
      assertThat(bytes(c.get(db, "t", b(BINARY_KEY)))).isEqualTo("third".getBytes(StandardCharsets.UTF_8));

      // getWithMeta, TTL, expire, persist
      EntryMeta meta = c.getWithMeta(db, "t", b(BINARY_KEY));
      assertThat(meta.getVersion()).isEqualTo(v3);
      assertThat(meta.isSetTtlMillis()).isFalse();
      c.put(db, "t", b("ttl"), b("x"), new PutOptions().setTtlMillis(60_000));
      assertThat(c.getWithMeta(db, "t", b("ttl")).getTtlMillis()).isBetween(1L, 60_000L);
      assertThat(c.persist(db, "t", b("ttl"))).isTrue();
      assertThat(c.getWithMeta(db, "t", b("ttl")).isSetTtlMillis()).isFalse();
      assertThat(c.expire(db, "t", b("ttl"), 30_000)).isTrue();
      assertThat(c.getWithMeta(db, "t", b("ttl")).getTtlMillis()).isBetween(1L, 30_000L);
      c.put(db, "t", b("short"), b("x"), new PutOptions().setTtlMillis(50));
      Thread.sleep(150);
      assertThatThrownBy(() -> c.get(db, "t", b("short"))).isInstanceOf(NotFound.class);
      assertThat(c.expire(db, "t", b("missing"), 1000)).isFalse();

      // remove: false when absent, PreconditionFailed on a version mismatch
      assertThat(c.remove(db, "t", b("missing"), null)).isFalse();
      assertThatThrownBy(() -> c.remove(db, "t", b(BINARY_KEY), new PutOptions().setIfVersion(v2)))
          .isInstanceOf(PreconditionFailed.class);
      assertThat(c.remove(db, "t", b(BINARY_KEY), new PutOptions().setIfVersion(v3))).isTrue();

      // atomic batch: one failing precondition writes nothing
      List<Mutation> failing = List.of(
          new Mutation(MutationType.PUT, b("b1")).setValue("1".getBytes(StandardCharsets.UTF_8)),
          new Mutation(MutationType.PUT, b("fresh")).setValue("2".getBytes(StandardCharsets.UTF_8))
              .setOptions(new PutOptions().setIfAbsent(true)));
      assertThatThrownBy(() -> c.batch(db, "t", failing, true)).isInstanceOf(PreconditionFailed.class);
      assertThat(c.multiGet(db, "t", List.of(b("b1"))).get(0).isFound()).isFalse();
      List<MutationResult> ok = c.batch(db, "t", List.of(
          new Mutation(MutationType.PUT, b("b1")).setValue("1".getBytes(StandardCharsets.UTF_8)),
          new Mutation(MutationType.DELETE, b("fresh"))), true);
      assertThat(ok).extracting(MutationResult::isApplied).containsExactly(true, true);
      assertThat(ok.get(0).getVersion()).isPositive();
      assertThat(c.multiGet(db, "t", List.of(b("b1"), b("fresh"))))
          .extracting(GetResult::isFound).containsExactly(true, false);
      // non-atomic: each on its own
      List<MutationResult> separate = c.batch(db, "t", List.of(
          new Mutation(MutationType.PUT, b("b1")).setValue("x".getBytes(StandardCharsets.UTF_8))
              .setOptions(new PutOptions().setIfAbsent(true)),
          new Mutation(MutationType.PUT, b("b2")).setValue("y".getBytes(StandardCharsets.UTF_8))), false);
      assertThat(separate).extracting(MutationResult::isApplied).containsExactly(false, true);

      // value over the limit: InvalidArgument naming the limit; the connection goes on
      int limit = 128 * 1024;
      assertThatThrownBy(() -> c.put(db, "t", b("big"), b(new byte[limit + 1]), null))
          .isInstanceOfSatisfying(InvalidArgument.class, e -> {
            assertThat(e.getCode()).isEqualTo(ErrorCode.TOO_LARGE);
            assertThat(e.getMessage()).contains(Integer.toString(limit));
          });
      assertThat(c.put(db, "t", b("big"), b(new byte[limit]), null)).isPositive();

      c.dropTable(db, "t");
      assertThatThrownBy(() -> c.describeTable(db, "t")).isInstanceOf(NotFound.class);
      c.dropDb(db, false);
      assertThatThrownBy(() -> c.listTables(db)).isInstanceOf(NotFound.class);
    } finally {
      ThriftClients.close(c);
    }
  }

  @Test
  void scan_thousandsOfKeys_pagesCoverEveryKeyOnceInOrder() throws Exception {
    KvService.Client c = ThriftClients.open(server.thriftPort(), ThriftWireFormat.FRAMED_BINARY);
    try {
      c.createDb("scan", Map.of());
      c.createTable(new TableSpec("scan", "t").setEngine("memory"));
      int n = 5000;
      List<Mutation> ops = new ArrayList<>();
      for (int i = 0; i < n; i++) {
        byte[] key = {(byte) (i >> 8), (byte) i, (byte) 0xFF};
        ops.add(new Mutation(MutationType.PUT, b(key)).setValue(new byte[] {(byte) i}));
        if (ops.size() == 1000) {
          c.batch("scan", "t", ops, true);
          ops.clear();
        }
      }
      List<byte[]> seen = new ArrayList<>();
      ScanRequest req = new ScanRequest().setLimit(700);
      int pages = 0;
      while (true) {
        ScanPage page = c.scan("scan", "t", req);
        pages++;
        page.getEntries().forEach(kv -> seen.add(kv.getKey()));
        if (!page.isMore()) {
          break;
        }
        req.setStartKey(page.getNextStartKey());
      }
      assertThat(pages).isEqualTo(8);
      assertThat(seen).hasSize(n);
      for (int i = 1; i < n; i++) {
        assertThat(Arrays.compareUnsigned(seen.get(i - 1), seen.get(i))).isNegative();
      }
      // pages also stop at the byte cap (a quarter of the 256kb frame)
      for (int i = 0; i < 10; i++) {
        c.put("scan", "t", b("v" + i), b(new byte[40_000]), null);
      }
      ScanPage big = c.scan("scan", "t", new ScanRequest().setPrefix("v".getBytes(StandardCharsets.UTF_8)).setLimit(1000));
      assertThat(big.getEntries()).hasSizeLessThan(10);
      assertThat(big.isMore()).isTrue();
      // reverse, keys only
      ScanPage rev = c.scan("scan", "t", new ScanRequest().setPrefix("v".getBytes(StandardCharsets.UTF_8))
          .setReverse(true).setKeysOnly(true).setLimit(3));
      assertThat(rev.getEntries()).extracting(kv -> new String(kv.getKey(), StandardCharsets.UTF_8))
          .containsExactly("v9", "v8", "v7");
      assertThat(rev.getEntries().get(0).isSetValue()).isFalse();
      assertThatThrownBy(() -> c.scan("scan", "t", new ScanRequest().setLimit(1001))).isInstanceOf(InvalidArgument.class);
    } finally {
      ThriftClients.close(c);
    }
  }

  @Test
  void crossProtocol_thriftWritesRespReads_andBack() throws Exception {
    KvService.Client c = ThriftClients.open(server.thriftPort(), ThriftWireFormat.UNFRAMED_BINARY);
    try (Jedis jedis = new Jedis("127.0.0.1", server.respPort())) {
      c.put("default", "0", b(BINARY_KEY), b(BINARY_VALUE), null);
      assertThat(jedis.get(BINARY_KEY)).isEqualTo(BINARY_VALUE);
      byte[] key = "bin\r\nkey\0\u00ff".getBytes(StandardCharsets.ISO_8859_1);
      jedis.set(key, BINARY_VALUE);
      assertThat(bytes(c.get("default", "0", b(key)))).isEqualTo(BINARY_VALUE);
      jedis.select(3);
      jedis.set("in3", "v");
      assertThat(bytes(c.get("default", "3", b("in3")))).isEqualTo("v".getBytes(StandardCharsets.UTF_8));
      // removals cross too (versions and expiry of default/0 depend on its engine, lsm here: the
      // engines other than memory may not carry them yet, so they are checked on memory tables above)
      jedis.select(0);
      assertThat(c.remove("default", "0", b(BINARY_KEY), null)).isTrue();
      assertThat(jedis.get(BINARY_KEY)).isNull();
      jedis.del(key);
      assertThatThrownBy(() -> c.get("default", "0", b(key))).isInstanceOf(NotFound.class);
    } finally {
      ThriftClients.close(c);
    }
  }

  @Test
  void password_callsBeforeAuthenticate_getUnauthorized() throws Exception {
    try (KVStoreServer s = KVStoreServer.start(TestServers.config(dir.resolve("auth")).set("thrift-port", "0")
        .set("password", "s3cret").build())) {
      KvService.Client c = ThriftClients.open(s.thriftPort(), ThriftWireFormat.FRAMED_COMPACT);
      try {
        assertThatThrownBy(c::ping).isInstanceOf(org.kvstore.thrift.Unauthorized.class);
        assertThatThrownBy(() -> c.get("default", "0", b("k"))).isInstanceOf(org.kvstore.thrift.Unauthorized.class);
        assertThatThrownBy(() -> c.authenticate("wrong")).isInstanceOf(org.kvstore.thrift.Unauthorized.class);
        assertThatThrownBy(c::listDbs).isInstanceOf(org.kvstore.thrift.Unauthorized.class);
        c.authenticate("s3cret");
        assertThat(c.ping()).isEqualTo("pong");
      } finally {
        ThriftClients.close(c);
      }
      KvService.Client other = ThriftClients.open(s.thriftPort(), ThriftWireFormat.UNFRAMED_BINARY);
      try {
        assertThatThrownBy(other::ping).as("authentication is per connection")
            .isInstanceOf(org.kvstore.thrift.Unauthorized.class);
      } finally {
        ThriftClients.close(other);
      }
    }
  }

  @Test
  void undeclaredFailure_becomesInternalError_connectionStaysUsable() throws Exception {
    KVStoreServer s = KVStoreServer.start(TestServers.config(dir.resolve("internal")).set("thrift-port", "0").build());
    KvService.Client c = ThriftClients.open(s.thriftPort(), ThriftWireFormat.FRAMED_BINARY);
    try {
      s.store().close(); // every store call now fails; listTables declares no exception for that
      assertThatThrownBy(() -> c.listTables("default"))
          .isInstanceOfSatisfying(TApplicationException.class,
              e -> assertThat(e.getType()).isEqualTo(TApplicationException.INTERNAL_ERROR));
      assertThat(c.ping()).isEqualTo("pong");
      assertThatThrownBy(() -> c.get("default", "0", b("k"))).isInstanceOf(org.kvstore.thrift.Unavailable.class);
      assertThat(c.ping()).isEqualTo("pong");
    } finally {
      ThriftClients.close(c);
      try {
        s.close();
      } catch (RuntimeException expected) {
        // the store was closed under the server
      }
    }
  }
}
