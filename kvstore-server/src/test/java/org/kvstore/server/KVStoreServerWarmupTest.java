package org.kvstore.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.kvstore.Cursor;
import org.kvstore.KVStore;
import org.kvstore.StoreOptions;
import org.kvstore.server.command.Keyspace;
import org.kvstore.server.warmup.ServerWarmup;
import org.kvstore.server.warmup.WarmupReport;
import redis.clients.jedis.Jedis;

/** The warm-up as the command runs it: after the store opens, before the ports are bound. */
class KVStoreServerWarmupTest {
  @TempDir Path dir;

  @Test
  void start_withWarmup_leavesNoTableKeyOrScratchDirectoryBehind() throws IOException {
    Path data = dir.resolve("data");
    ServerConfig config = TestServers.config(data).set("http-port", "0").set("thrift-port", "0")
        .set("warmup-duration", "1").build();
    AtomicReference<WarmupReport> report = new AtomicReference<>();

    try (KVStoreServer server = KVStoreServer.start(config, () -> report.set(ServerWarmup.run(config, () -> false)));
        Jedis jedis = new Jedis("127.0.0.1", server.respPort())) {
      assertThat(report.get()).isNotNull();
      assertThat(report.get().requests().get("RESP")).isPositive();
      assertThat(jedis.dbSize()).isZero();
      assertThat(jedis.get("counter:0")).isNull();
    }

    try (Stream<Path> tmp = Files.list(Path.of(System.getProperty("java.io.tmpdir")))) {
      String ours = "kvstore-warmup-" + ProcessHandle.current().pid() + "-";
      assertThat(tmp.filter(p -> p.getFileName().toString().startsWith(ours)).toList()).isEmpty();
    }
    try (KVStore store = KVStore.open(data, StoreOptions.defaults())) {
      assertThat(store.listDBs()).containsExactly(Keyspace.DEFAULT_DB);
      assertThat(store.listTables(Keyspace.DEFAULT_DB)).containsExactly("0");
      try (Cursor c = store.scan(Keyspace.DEFAULT_DB, "0", new byte[0], null, 10)) {
        assertThat(c.next()).isFalse();
      }
    }
  }
}
