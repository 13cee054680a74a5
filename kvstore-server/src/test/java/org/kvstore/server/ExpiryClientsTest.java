package org.kvstore.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lettuce.core.ExpireArgs;
import io.lettuce.core.GetExArgs;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.SetArgs;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.args.ExpiryOption;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.params.GetExParams;
import redis.clients.jedis.params.SetParams;

/**
 * Key expiry through the clients' own APIs, against a server whose keys really expire (the memory
 * engine): Jedis ({@code setex}, {@code expire}, {@code ttl}, {@code getEx}, {@code pexpire} with
 * {@link ExpiryOption}), Lettuce ({@code setex}, {@code expire} with {@link ExpireArgs},
 * {@code getex}, {@code ttl}), redis-py (the script {@code redis_py_expiry.py}) and redis-cli. Times
 * to live are long (checked by TTL) except one short one per client, waited for with a bound.
 */
class ExpiryClientsTest {
  @TempDir static Path dir;
  static KVStoreServer server;
  static int port;

  @BeforeAll
  static void start() {
    server = KVStoreServer.start(TestServers.config(dir).set("default-engine", "memory").build());
    port = server.respPort();
  }

  @AfterAll
  static void stop() {
    server.close();
  }

  /** Waits until {@code absent} holds, at most 5 s (the short-lived keys live 200 ms). */
  private static void awaitExpiry(Supplier<Boolean> absent) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
    while (!absent.get()) {
      assertThat(System.nanoTime()).as("key still present after 5 s").isLessThan(deadline);
      Thread.sleep(20);
    }
  }

  @Test
  void jedis_expiryApis() throws Exception {
    try (Jedis j = new Jedis("127.0.0.1", port)) {
      assertThat(j.setex("j:setex", 100, "v")).isEqualTo("OK");
      assertThat(j.ttl("j:setex")).isBetween(99L, 100L);
      assertThat(j.set("j:k", "v")).isEqualTo("OK");
      assertThat(j.ttl("j:k")).isEqualTo(-1);
      assertThat(j.ttl("j:missing")).isEqualTo(-2);
      assertThat(j.expire("j:k", 100)).isEqualTo(1);
      assertThat(j.pexpire("j:k", 50_000, ExpiryOption.GT)).isEqualTo(0);
      assertThat(j.pexpire("j:k", 500_000, ExpiryOption.GT)).isEqualTo(1);
      assertThat(j.pttl("j:k")).isBetween(499_000L, 500_000L);
      assertThat(j.expire("j:k", 10, ExpiryOption.NX)).isEqualTo(0);
      assertThat(j.pexpireTime("j:k")).isBetween(
          System.currentTimeMillis() + 498_000, System.currentTimeMillis() + 500_000);
      assertThat(j.getEx("j:k", GetExParams.getExParams().ex(100))).isEqualTo("v");
      assertThat(j.ttl("j:k")).isBetween(99L, 100L);
      assertThat(j.getEx("j:k", GetExParams.getExParams().persist())).isEqualTo("v");
      assertThat(j.ttl("j:k")).isEqualTo(-1);
      assertThat(j.set("j:k", "w", SetParams.setParams().ex(100))).isEqualTo("OK");
      assertThat(j.set("j:k", "x", SetParams.setParams().keepTtl())).isEqualTo("OK");
      assertThat(j.ttl("j:k")).isBetween(99L, 100L);
      assertThat(j.persist("j:k")).isEqualTo(1);
      assertThatThrownBy(() -> j.setex("j:k", 0, "v")).isInstanceOf(JedisDataException.class)
          .hasMessage("ERR invalid expire time in 'setex' command");

      assertThat(j.set("j:short", "v", SetParams.setParams().px(200))).isEqualTo("OK");
      awaitExpiry(() -> !j.exists("j:short"));
      assertThat(j.get("j:short")).isNull();
    }
  }

  @Test
  void lettuce_expiryApis() throws Exception {
    RedisClient client = RedisClient.create();
    try (StatefulRedisConnection<String, String> c =
        client.connect(RedisURI.builder().withHost("127.0.0.1").withPort(port).build())) {
      RedisCommands<String, String> r = c.sync();
      assertThat(r.setex("l:setex", 100, "v")).isEqualTo("OK");
      assertThat(r.ttl("l:setex")).isBetween(99L, 100L);
      assertThat(r.psetex("l:psetex", 100_000, "v")).isEqualTo("OK");
      assertThat(r.pttl("l:psetex")).isBetween(99_000L, 100_000L);
      r.set("l:k", "v");
      assertThat(r.expire("l:k", Duration.ofSeconds(100))).isTrue();
      assertThat(r.expire("l:k", 50, ExpireArgs.Builder.gt())).isFalse();
      assertThat(r.expire("l:k", 50, ExpireArgs.Builder.lt())).isTrue();
      assertThat(r.ttl("l:k")).isBetween(49L, 50L);
      assertThat(r.getex("l:k", GetExArgs.Builder.px(70_000))).isEqualTo("v");
      assertThat(r.pttl("l:k")).isBetween(69_000L, 70_000L);
      assertThat(r.getex("l:k", GetExArgs.Builder.persist())).isEqualTo("v");
      assertThat(r.ttl("l:k")).isEqualTo(-1);
      assertThat(r.set("l:k", "w", SetArgs.Builder.ex(100))).isEqualTo("OK");
      assertThat(r.expiretime("l:k")).isBetween(
          System.currentTimeMillis() / 1000 + 98, System.currentTimeMillis() / 1000 + 101);
      assertThat(r.persist("l:k")).isTrue();
      assertThat(r.ttl("l:missing")).isEqualTo(-2);

      r.set("l:short", "v", SetArgs.Builder.px(200));
      awaitExpiry(() -> r.exists("l:short") == 0);
      assertThat(r.get("l:short")).isNull();
    } finally {
      client.shutdown();
    }
  }

  @Test
  void redisPy_expiryApis() throws Exception {
    String python = RedisPyTest.python();
    Path script = dir.resolve("redis_py_expiry.py");
    try (InputStream in = ExpiryClientsTest.class.getResourceAsStream("/redis_py_expiry.py")) {
      assertThat(in).as("test resource redis_py_expiry.py").isNotNull();
      Files.copy(in, script, StandardCopyOption.REPLACE_EXISTING);
    }
    String[] probe = runWithInput(null, python, "-c", "import redis");
    Assumptions.assumeTrue(probe != null && probe[0].equals("0"),
        "'" + python + "' cannot import redis: install redis-py (.ci/run sets KVSTORE_TEST_PYTHON)");
    for (String protocol : new String[] {"2", "3"}) {
      String[] r = runWithInput(null, python, script.toString(), "127.0.0.1", Integer.toString(port), protocol);
      assertThat(r[0]).as("protocol %s: %s %s", protocol, r[1], r[2]).isEqualTo("0");
      assertThat(r[1]).isEqualTo("expiry checks passed\n");
    }
  }

  @Test
  void redisCli_expirySession() throws Exception {
    Assumptions.assumeTrue(RedisToolsTest.onPath("redis-cli"),
        "redis-cli is not installed: apt-get install redis-tools (.ci/run installs it)");
    String session = String.join("\n",
        "SET c:k v EX 100", "TTL c:k", "EXPIRE c:k 50 GT", "PERSIST c:k", "TTL c:k",
        "SETEX c:s 0 v", "GETEX c:k PX 5000", "EXPIRE c:k 10 NX XX", "TTL c:missing", "") + "\n";
    String[] r = runWithInput(session, "redis-cli", "-p", Integer.toString(port));
    assertThat(r[0]).isEqualTo("0");
    assertThat(r[1]).isEqualTo(String.join("\n",
        "OK", "100", "0", "1", "-1",
        // redis-cli follows an error with an empty line
        "ERR invalid expire time in 'setex' command", "", "v",
        "ERR NX and XX, GT or LT options at the same time are not compatible", "", "-2", ""));
  }

  /**
   * Runs {@code cmd} with {@code stdin} as its input (null: /dev/null); returns its exit code, stdout
   * and stderr, or null when it cannot start.
   */
  private static String[] runWithInput(String stdin, String... cmd) throws InterruptedException {
    try {
      Path out = Files.createTempFile(dir, "out", ".txt");
      Path err = Files.createTempFile(dir, "err", ".txt");
      ProcessBuilder pb = new ProcessBuilder(cmd).redirectOutput(out.toFile()).redirectError(err.toFile());
      if (stdin == null) {
        pb.redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
      }
      Process p = pb.start();
      if (stdin != null) {
        p.getOutputStream().write(stdin.getBytes(StandardCharsets.UTF_8));
        p.getOutputStream().close();
      }
      if (!p.waitFor(120, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        throw new AssertionError("timed out: " + String.join(" ", cmd));
      }
      return new String[] {Integer.toString(p.exitValue()), Files.readString(out), Files.readString(err)};
    } catch (IOException e) {
      return null;
    }
  }
}
