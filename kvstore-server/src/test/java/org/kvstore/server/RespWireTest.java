package org.kvstore.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Byte-exact replies over a raw socket: the wire vectors and error texts of Redis 7. */
class RespWireTest {
  @TempDir static Path dir;
  static KVStoreServer server;
  static int port;

  @BeforeAll
  static void start() {
    server = TestServers.start(dir);
    port = server.respPort();
  }

  @AfterAll
  static void stop() {
    server.close();
  }

  private static String roundTrip(String request, String expected) throws Exception {
    try (RawClient c = new RawClient(port)) {
      return c.send(request).readExpected(expected);
    }
  }

  @Test
  void inlineAndMultibulk_ping() throws Exception {
    assertThat(roundTrip("PING\r\n", "+PONG\r\n")).isEqualTo("+PONG\r\n");
    assertThat(roundTrip("*1\r\n$4\r\nPING\r\n", "+PONG\r\n")).isEqualTo("+PONG\r\n");
    assertThat(roundTrip("PING hello\n", "$5\r\nhello\r\n")).isEqualTo("$5\r\nhello\r\n");
    assertThat(roundTrip("\r\n\r\nPING\r\n", "+PONG\r\n")).as("empty lines are ignored").isEqualTo("+PONG\r\n");
  }

  @Test
  void inlineQuotes_areSplitLikeRedis() throws Exception {
    String r = roundTrip("SET \"a b\" 'c d'\r\nGET \"a b\"\r\nECHO \"\\x41\\n\"\r\n", "+OK\r\n$3\r\nc d\r\n$2\r\nA\n\r\n");
    assertThat(r).isEqualTo("+OK\r\n$3\r\nc d\r\n$2\r\nA\n\r\n");
  }

  @Test
  void splitCommand_isBufferedUntilComplete() throws Exception {
    try (RawClient c = new RawClient(port)) {
      c.send("*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$1\r\nv\r\n");
      assertThat(c.readExpected("+OK\r\n")).isEqualTo("+OK\r\n");
      c.send("*2\r\n$3\r\nGE");
      Thread.sleep(50);
      c.send("T\r\n$1\r\nk\r\n");
      assertThat(c.readExpected("$1\r\nv\r\n")).isEqualTo("$1\r\nv\r\n");
    }
  }

  @Test
  void pipelineOfThousandPings_thousandRepliesInOrder() throws Exception {
    StringBuilder req = new StringBuilder();
    StringBuilder exp = new StringBuilder();
    for (int i = 0; i < 1000; i++) {
      req.append("*2\r\n$4\r\nECHO\r\n$").append(Integer.toString(i).length()).append("\r\n").append(i).append("\r\n");
      exp.append('$').append(Integer.toString(i).length()).append("\r\n").append(i).append("\r\n");
    }
    assertThat(roundTrip(req.toString(), exp.toString())).isEqualTo(exp.toString());
  }

  @Test
  void protocolErrors_replyThenClose_afterEarlierCommands() throws Exception {
    try (RawClient c = new RawClient(port)) {
      c.send("PING\r\n*1\r\n$4\r\nPING\r\n*1\r\n+X\r\nPING\r\n");
      assertThat(c.readUntilClosed())
          .isEqualTo("+PONG\r\n+PONG\r\n-ERR Protocol error: expected '$', got '+'\r\n");
    }
    for (String bad : new String[] {"*abc\r\n", "*4294967296\r\n", "*1048577\r\n"}) {
      try (RawClient c = new RawClient(port)) {
        c.send(bad);
        assertThat(c.readUntilClosed()).isEqualTo("-ERR Protocol error: invalid multibulk length\r\n");
      }
    }
    for (String bad : new String[] {"*1\r\n$-1\r\n", "*1\r\n$ 4\r\n", "*1\r\n$+4\r\n", "*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$629145600\r\n"}) {
      try (RawClient c = new RawClient(port)) {
        c.send(bad);
        assertThat(c.readUntilClosed()).as(bad).isEqualTo("-ERR Protocol error: invalid bulk length\r\n");
      }
    }
  }

  @Test
  void emptyCommandName_isUnknown() throws Exception {
    String expected = "-ERR unknown command '', with args beginning with: \r\n";
    assertThat(roundTrip("*1\r\n$0\r\n\r\n", expected)).isEqualTo(expected);
  }

  @Test
  void errorTexts_matchRedis() throws Exception {
    try (RawClient c = new RawClient(port)) {
      c.command("SET", "k", "v", "NX", "XX");
      assertThat(c.readExpected("-ERR syntax error\r\n")).isEqualTo("-ERR syntax error\r\n");
      c.command("SET", "k", "v", "EX", "0");
      String expire = "-ERR invalid expire time in 'set' command\r\n";
      assertThat(c.readExpected(expire)).isEqualTo(expire);
      c.command("SELECT", "a");
      String notInt = "-ERR value is not an integer or out of range\r\n";
      assertThat(c.readExpected(notInt)).isEqualTo(notInt);
      c.command("SELECT", "16");
      String range = "-ERR DB index is out of range\r\n";
      assertThat(c.readExpected(range)).isEqualTo(range);
      c.command("RENAME", "nope", "x");
      assertThat(c.readExpected("-ERR no such key\r\n")).isEqualTo("-ERR no such key\r\n");
      c.command("SCAN", "abc");
      assertThat(c.readExpected("-ERR invalid cursor\r\n")).isEqualTo("-ERR invalid cursor\r\n");
      c.command("CLIENT", "BLAH");
      String sub = "-ERR unknown subcommand 'BLAH'. Try CLIENT HELP.\r\n";
      assertThat(c.readExpected(sub)).isEqualTo(sub);
      c.command("CLIENT", "SETNAME", "a b");
      String name = "-ERR Client names cannot contain spaces, newlines or special characters.\r\n";
      assertThat(c.readExpected(name)).isEqualTo(name);
      c.command("CLIENT", "SETNAME");
      String ar = "-ERR wrong number of arguments for 'client|setname' command\r\n";
      assertThat(c.readExpected(ar)).isEqualTo(ar);
      c.command("SET", "big", "9223372036854775807");
      c.readExpected("+OK\r\n");
      c.command("INCR", "big");
      String ov = "-ERR increment or decrement would overflow\r\n";
      assertThat(c.readExpected(ov)).isEqualTo(ov);
      c.command("AUTH", "x");
      String noPass = "-ERR AUTH <password> called without any password configured for the default user."
          + " Are you sure your configuration is correct?\r\n";
      assertThat(c.readExpected(noPass)).isEqualTo(noPass);
      c.command("CONFIG", "SET", "nosuch", "1");
      String cs = "-ERR Unknown option or number of arguments for CONFIG SET - 'nosuch'\r\n";
      assertThat(c.readExpected(cs)).isEqualTo(cs);
      c.command("PING");
      assertThat(c.readExpected("+PONG\r\n")).isEqualTo("+PONG\r\n");
    }
  }

  @Test
  void hello3_switchesToResp3Nulls_andBack() throws Exception {
    try (RawClient c = new RawClient(port)) {
      c.command("HELLO", "3");
      String head = "%7\r\n$6\r\nserver\r\n$7\r\nkvstore\r\n$7\r\nversion\r\n$5\r\n7.2.4\r\n$5\r\nproto\r\n:3\r\n$2\r\nid\r\n:";
      assertThat(c.readExpected(head)).isEqualTo(head);
      String id = "";
      for (char ch = c.read(1).charAt(0); ch != '\r'; ch = c.read(1).charAt(0)) {
        id += ch;
      }
      assertThat(id).matches("[0-9]+");
      String tail = "\n$4\r\nmode\r\n$10\r\nstandalone\r\n$4\r\nrole\r\n$6\r\nmaster\r\n$7\r\nmodules\r\n*0\r\n";
      assertThat(c.readExpected(tail)).isEqualTo(tail);
      c.command("GET", "resp3-missing");
      assertThat(c.readExpected("_\r\n")).isEqualTo("_\r\n");
      c.command("MGET", "resp3-missing", "resp3-missing");
      assertThat(c.readExpected("*2\r\n_\r\n_\r\n")).isEqualTo("*2\r\n_\r\n_\r\n");
      c.command("CONFIG", "GET", "appendonly");
      String map = "%1\r\n$10\r\nappendonly\r\n$3\r\nyes\r\n";
      assertThat(c.readExpected(map)).isEqualTo(map);
      c.command("HELLO", "4");
      String np = "-NOPROTO unsupported protocol version\r\n";
      assertThat(c.readExpected(np)).isEqualTo(np);
      c.command("RESET");
      assertThat(c.readExpected("+RESET\r\n")).isEqualTo("+RESET\r\n");
      c.command("GET", "resp3-missing");
      assertThat(c.readExpected("$-1\r\n")).isEqualTo("$-1\r\n");
    }
  }

  @Test
  void quit_repliesOkAndIgnoresTheRest() throws Exception {
    try (RawClient c = new RawClient(port)) {
      c.send("QUIT\r\nPING\r\n");
      assertThat(c.readUntilClosed()).isEqualTo("+OK\r\n");
    }
  }

  @Test
  void existsCountsDuplicates_delCountsOnce() throws Exception {
    try (RawClient c = new RawClient(port)) {
      c.command("MSET", "d1", "a", "d3", "b");
      c.readExpected("+OK\r\n");
      c.command("EXISTS", "d1", "d1", "d3", "d2");
      assertThat(c.readExpected(":3\r\n")).isEqualTo(":3\r\n");
      c.command("DEL", "d1", "d1", "d2");
      assertThat(c.readExpected(":1\r\n")).isEqualTo(":1\r\n");
      c.command("MSET", "odd");
      String ar = "-ERR wrong number of arguments for 'mset' command\r\n";
      assertThat(c.readExpected(ar)).isEqualTo(ar);
    }
  }

  @Test
  void kvCommands_createUseRangeDrop() throws Exception {
    try (RawClient c = new RawClient(port)) {
      c.command("KV.CREATE", "app", "users", "memory");
      assertThat(c.readExpected("+OK\r\n")).isEqualTo("+OK\r\n");
      c.command("KV.USE", "app", "users");
      assertThat(c.readExpected("+OK\r\n")).isEqualTo("+OK\r\n");
      c.command("MSET", "b", "2", "a", "1", "c", "3");
      c.readExpected("+OK\r\n");
      c.command("KV.RANGE", "a", "c");
      String r = "*4\r\n$1\r\na\r\n$1\r\n1\r\n$1\r\nb\r\n$1\r\n2\r\n";
      assertThat(c.readExpected(r)).isEqualTo(r);
      c.command("KV.RANGE", "", "", "LIMIT", "1");
      String r1 = "*2\r\n$1\r\na\r\n$1\r\n1\r\n";
      assertThat(c.readExpected(r1)).isEqualTo(r1);
      c.command("KV.TABLES", "app");
      String t = "*1\r\n$5\r\nusers\r\n";
      assertThat(c.readExpected(t)).isEqualTo(t);
      c.command("KV.CREATE", "app", "users", "memory");
      String dup = "-ERR table 'users' already exists in database 'app'\r\n";
      assertThat(c.readExpected(dup)).isEqualTo(dup);
      c.command("KV.DROP", "app", "users");
      assertThat(c.readExpected("+OK\r\n")).isEqualTo("+OK\r\n");
      c.command("GET", "a");
      String gone = "-ERR no such table 'users' in database 'app'\r\n";
      assertThat(c.readExpected(gone)).isEqualTo(gone);
      c.command("KV.USE", "default", "0");
      assertThat(c.readExpected("+OK\r\n")).isEqualTo("+OK\r\n");
      c.command("KV.CREATE", "app", "t2", "nosuchengine");
      String eng = c.read(5);
      assertThat(eng).isEqualTo("-ERR ");
    }
  }
}
