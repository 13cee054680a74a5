package org.kvstore.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.exceptions.JedisAccessControlException;

/** A server with a password: NOAUTH before AUTH, WRONGPASS, HELLO AUTH, and the pre-auth limits. */
class AuthTest {
  @TempDir static Path dir;
  static KVStoreServer server;
  static int port;

  @BeforeAll
  static void start() {
    server = KVStoreServer.start(TestServers.config(dir).set("password", "s3cret").build());
    port = server.respPort();
  }

  @AfterAll
  static void stop() {
    server.close();
  }

  @Test
  void beforeAuth_commandsGetNoauth_existenceAndArityFirst() throws Exception {
    try (RawClient c = new RawClient(port)) {
      c.command("GET", "k");
      String noauth = "-NOAUTH Authentication required.\r\n";
      assertThat(c.readExpected(noauth)).isEqualTo(noauth);
      c.command("GET");
      String ar = "-ERR wrong number of arguments for 'get' command\r\n";
      assertThat(c.readExpected(ar)).isEqualTo(ar);
      c.command("HELLO", "3");
      String hello = "-NOAUTH HELLO must be called with the client already authenticated, otherwise the"
          + " HELLO <proto> AUTH <user> <pass> option can be used to authenticate the client and select"
          + " the RESP protocol version at the same time\r\n";
      assertThat(c.readExpected(hello)).isEqualTo(hello);
      c.command("AUTH", "wrong");
      String wp = "-WRONGPASS invalid username-password pair or user is disabled.\r\n";
      assertThat(c.readExpected(wp)).isEqualTo(wp);
      c.command("AUTH", "default", "s3cret");
      assertThat(c.readExpected("+OK\r\n")).isEqualTo("+OK\r\n");
      c.command("SET", "k", "v");
      assertThat(c.readExpected("+OK\r\n")).isEqualTo("+OK\r\n");
    }
  }

  @Test
  void helloAuth_authenticatesAndSwitches() throws Exception {
    try (RawClient c = new RawClient(port)) {
      c.command("HELLO", "3", "AUTH", "default", "s3cret", "SETNAME", "app1");
      assertThat(c.read(3)).isEqualTo("%7\r");
    }
    DefaultJedisClientConfig good = DefaultJedisClientConfig.builder().password("s3cret").build();
    try (Jedis j = new Jedis(new HostAndPort("127.0.0.1", port), good)) {
      j.set("a", "b");
      assertThat(j.get("a")).isEqualTo("b");
    }
    DefaultJedisClientConfig bad = DefaultJedisClientConfig.builder().password("nope").build();
    assertThatThrownBy(() -> {
      try (Jedis j = new Jedis(new HostAndPort("127.0.0.1", port), bad)) {
        j.get("a");
      }
    }).isInstanceOf(JedisAccessControlException.class).hasMessageStartingWith("WRONGPASS");
  }

  @Test
  void beforeAuth_smallLimits_closeTheConnection() throws Exception {
    try (RawClient c = new RawClient(port)) {
      c.send("*11\r\n");
      assertThat(c.readUntilClosed()).isEqualTo("-ERR Protocol error: unauthenticated multibulk length\r\n");
    }
    try (RawClient c = new RawClient(port)) {
      c.send("*2\r\n$3\r\nGET\r\n$16385\r\n");
      assertThat(c.readUntilClosed()).isEqualTo("-ERR Protocol error: unauthenticated bulk length\r\n");
    }
    try (RawClient c = new RawClient(port)) {
      c.command("AUTH", "s3cret");
      c.readExpected("+OK\r\n");
      c.command("SET", "big", "x".repeat(20_000));
      assertThat(c.readExpected("+OK\r\n")).as("full limits after AUTH").isEqualTo("+OK\r\n");
    }
  }
}
