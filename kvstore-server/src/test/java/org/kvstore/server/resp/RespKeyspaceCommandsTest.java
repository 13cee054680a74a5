package org.kvstore.server.resp;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.kvstore.Entry;
import org.kvstore.PutOptions;
import org.kvstore.Table;

/**
 * COPY, TOUCH, OBJECT and INFO keyspace/stats with Redis 7.2's replies and error texts, and the
 * keyspace commands hiding expired keys, on the memory engine with a clock the tests move
 * ({@link FakeClockServer}).
 */
class RespKeyspaceCommandsTest {
  private static final String ONE = ":1\r\n";
  private static final String ZERO = ":0\r\n";
  private static final String OK = "+OK\r\n";
  private static final String NIL = "$-1\r\n";

  @RegisterExtension final FakeClockServer server = new FakeClockServer();

  private static byte[] b(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private static String bulk(String s) {
    return "$" + s.length() + "\r\n" + s + "\r\n";
  }

  private static String error(String text) {
    return "-" + text + "\r\n";
  }

  /** Puts {@code key} in table {@code db} expiring {@code ttlMillis} from now (SET PX, without SET PX). */
  private void putWithTtl(int db, String key, String value, long ttlMillis) {
    server.table(db).put(b(key), b(value), PutOptions.defaults().ttlMillis(ttlMillis));
  }

  // ---- COPY ----

  @Test
  void copy_missingSource_returnsZero() {
    assertThat(server.call("COPY", "nosuch", "dst")).isEqualTo(ZERO);
    server.call("SET", "dst", "kept");
    assertThat(server.call("COPY", "nosuch", "dst", "REPLACE")).isEqualTo(ZERO);
    assertThat(server.call("GET", "dst")).isEqualTo(bulk("kept"));
  }

  @Test
  void copy_toNewKey_copiesValue() {
    server.call("SET", "src", "sheep");
    assertThat(server.call("COPY", "src", "clone")).isEqualTo(ONE);
    assertThat(server.call("GET", "clone")).isEqualTo(bulk("sheep"));
    assertThat(server.call("GET", "src")).isEqualTo(bulk("sheep"));
  }

  @Test
  void copy_existingDestination_needsReplace() {
    server.call("SET", "src", "new");
    server.call("SET", "dst", "old");
    assertThat(server.call("COPY", "src", "dst")).isEqualTo(ZERO);
    assertThat(server.call("GET", "dst")).isEqualTo(bulk("old"));
    assertThat(server.call("COPY", "src", "dst", "replace")).isEqualTo(ONE);
    assertThat(server.call("GET", "dst")).isEqualTo(bulk("new"));
  }

  @Test
  void copy_sameKeySameDb_isRedisError() {
    server.call("SET", "a", "1");
    String same = error("ERR source and destination objects are the same");
    assertThat(server.call("COPY", "a", "a")).isEqualTo(same);
    assertThat(server.call("COPY", "a", "a", "DB", "0")).isEqualTo(same);
    assertThat(server.call("COPY", "missing", "missing")).isEqualTo(same);
    assertThat(server.call("COPY", "a", "a", "DB", "1")).isEqualTo(ONE);
    assertThat(server.call("SELECT", "1")).isEqualTo(OK);
    assertThat(server.call("GET", "a")).isEqualTo(bulk("1"));
  }

  @Test
  void copy_badOptions_areRedisErrors() {
    server.call("SET", "a", "1");
    String range = error("ERR DB index is out of range");
    assertThat(server.call("COPY", "a", "b", "DB", "16")).isEqualTo(range);
    assertThat(server.call("COPY", "a", "b", "DB", "-1")).isEqualTo(range);
    assertThat(server.call("COPY", "a", "b", "DB", "x"))
        .isEqualTo(error("ERR value is not an integer or out of range"));
    assertThat(server.call("COPY", "a", "b", "DB")).isEqualTo(error("ERR syntax error"));
    assertThat(server.call("COPY", "a", "b", "foo")).isEqualTo(error("ERR syntax error"));
    assertThat(server.call("COPY", "a", "b", "DB", "16", "foo")).isEqualTo(range);
    assertThat(server.call("COPY", "a", "b", "foo", "DB", "16")).isEqualTo(error("ERR syntax error"));
    assertThat(server.call("COPY", "a"))
        .isEqualTo(error("ERR wrong number of arguments for 'copy' command"));
    assertThat(server.call("EXISTS", "b")).isEqualTo(ZERO);
    assertThat(server.call("COPY", "a", "b", "REPLACE", "REPLACE")).isEqualTo(ONE);
  }

  @Test
  void copy_sameDb_copiesAbsoluteExpiry() {
    putWithTtl(0, "src", "v", 10_000);
    long expiresAt = server.table(0).getEntry(b("src")).expiresAt();
    server.clock().advanceMillis(4_000);
    assertThat(server.call("COPY", "src", "dst")).isEqualTo(ONE);
    Entry copy = server.table(0).getEntry(b("dst"));
    assertThat(copy.value()).isEqualTo(b("v"));
    assertThat(copy.expiresAt()).isEqualTo(expiresAt);
    server.clock().advanceMillis(6_001);
    assertThat(server.call("EXISTS", "src", "dst")).isEqualTo(ZERO);
  }

  @Test
  void copy_otherDb_copiesAbsoluteExpiry() {
    putWithTtl(0, "src", "v", 10_000);
    long expiresAt = server.table(0).getEntry(b("src")).expiresAt();
    assertThat(server.call("COPY", "src", "dst", "DB", "3")).isEqualTo(ONE);
    assertThat(server.table(3).getEntry(b("dst")).expiresAt()).isEqualTo(expiresAt);
    assertThat(server.call("COPY", "src", "dst", "DB", "3")).isEqualTo(ZERO);
  }

  @Test
  void copy_replaceWithPersistentSource_dropsDestinationExpiry() {
    server.call("SET", "src", "forever");
    putWithTtl(0, "dst", "old", 5_000);
    putWithTtl(2, "dst", "old", 5_000);
    assertThat(server.call("COPY", "src", "dst", "REPLACE")).isEqualTo(ONE);
    assertThat(server.call("COPY", "src", "dst", "DB", "2", "REPLACE")).isEqualTo(ONE);
    assertThat(server.table(0).getEntry(b("dst")).hasExpiry()).isFalse();
    assertThat(server.table(2).getEntry(b("dst")).hasExpiry()).isFalse();
    assertThat(server.table(2).get(b("dst"))).isEqualTo(b("forever"));
  }

  @Test
  void copy_expiredSource_returnsZero() {
    putWithTtl(0, "src", "v", 100);
    server.clock().advanceMillis(101);
    assertThat(server.call("COPY", "src", "dst")).isEqualTo(ZERO);
    assertThat(server.call("COPY", "src", "dst", "DB", "1")).isEqualTo(ZERO);
    assertThat(server.call("EXISTS", "dst")).isEqualTo(ZERO);
  }

  @Test
  void copy_ontoExpiredDestination_copiesWithoutReplace() {
    server.call("SET", "src", "new");
    putWithTtl(0, "dst", "old", 100);
    putWithTtl(1, "dst", "old", 100);
    server.clock().advanceMillis(101);
    assertThat(server.call("COPY", "src", "dst")).isEqualTo(ONE);
    assertThat(server.call("COPY", "src", "dst", "DB", "1")).isEqualTo(ONE);
    assertThat(server.call("GET", "dst")).isEqualTo(bulk("new"));
    assertThat(server.table(1).get(b("dst"))).isEqualTo(b("new"));
  }

  @Test
  void copy_toOtherDbInsideMulti_isRefusedAtExec() {
    server.call("SET", "a", "1");
    server.call("MULTI");
    assertThat(server.call("COPY", "a", "b", "DB", "1")).isEqualTo("+QUEUED\r\n");
    assertThat(server.call("EXEC"))
        .isEqualTo("*1\r\n" + error("ERR COPY to another database is not supported inside MULTI"));
    assertThat(server.table(1).get(b("b"))).isNull();
  }

  // ---- TOUCH ----

  @Test
  void touch_countsExistingKeys_duplicatesTwice_expiredNot() {
    server.call("SET", "a", "1");
    server.call("SET", "b", "2");
    putWithTtl(0, "gone", "x", 100);
    putWithTtl(0, "still", "x", 1_000);
    server.clock().advanceMillis(101);
    assertThat(server.call("TOUCH", "a", "b", "nope", "a", "gone", "still")).isEqualTo(":4\r\n");
    assertThat(server.call("TOUCH"))
        .isEqualTo(error("ERR wrong number of arguments for 'touch' command"));
  }

  // ---- OBJECT ----

  private String encodingOf(String value) {
    server.call("SET", "k", value);
    return server.call("OBJECT", "ENCODING", "k");
  }

  @Test
  void objectEncoding_followsRedisStringEncodings() {
    assertThat(encodingOf("1")).isEqualTo(bulk("int"));
    assertThat(encodingOf("-5")).isEqualTo(bulk("int"));
    assertThat(encodingOf("9223372036854775807")).isEqualTo(bulk("int"));
    assertThat(encodingOf("-9223372036854775808")).isEqualTo(bulk("int"));
    assertThat(encodingOf("9223372036854775808")).isEqualTo(bulk("embstr"));
    assertThat(encodingOf("-0")).isEqualTo(bulk("embstr"));
    assertThat(encodingOf("012")).isEqualTo(bulk("embstr"));
    assertThat(encodingOf("+1")).isEqualTo(bulk("embstr"));
    assertThat(encodingOf(" 1")).isEqualTo(bulk("embstr"));
    assertThat(encodingOf("")).isEqualTo(bulk("embstr"));
    assertThat(encodingOf("hello")).isEqualTo(bulk("embstr"));
    assertThat(encodingOf("x".repeat(44))).isEqualTo(bulk("embstr"));
    assertThat(encodingOf("x".repeat(45))).isEqualTo(bulk("raw"));
  }

  @Test
  void objectRefcount_sharedSmallIntegersLikeRedis() {
    server.call("SET", "zero", "0");
    server.call("SET", "small", "9999");
    server.call("SET", "big", "10000");
    server.call("SET", "neg", "-5");
    server.call("SET", "text", "abc");
    assertThat(server.call("OBJECT", "REFCOUNT", "zero")).isEqualTo(":2147483647\r\n");
    assertThat(server.call("OBJECT", "REFCOUNT", "small")).isEqualTo(":2147483647\r\n");
    assertThat(server.call("OBJECT", "REFCOUNT", "big")).isEqualTo(ONE);
    assertThat(server.call("OBJECT", "REFCOUNT", "neg")).isEqualTo(ONE);
    assertThat(server.call("OBJECT", "REFCOUNT", "text")).isEqualTo(ONE);
  }

  @Test
  void object_missingOrExpiredKey_isNil() {
    putWithTtl(0, "gone", "x", 100);
    server.clock().advanceMillis(101);
    for (String sub : new String[] {"ENCODING", "REFCOUNT", "IDLETIME", "FREQ"}) {
      assertThat(server.call("OBJECT", sub, "nosuch")).as(sub).isEqualTo(NIL);
      assertThat(server.call("OBJECT", sub, "gone")).as(sub).isEqualTo(NIL);
    }
    server.call("HELLO", "3");
    assertThat(server.call("OBJECT", "ENCODING", "nosuch")).isEqualTo("_\r\n");
  }

  @Test
  void objectIdletimeAndFreq_untrackedLikeNoevictionRedis() {
    server.call("SET", "k", "v");
    assertThat(server.call("OBJECT", "IDLETIME", "k")).isEqualTo(ZERO);
    assertThat(server.call("OBJECT", "freq", "k")).isEqualTo(error("ERR An LFU maxmemory policy is not"
        + " selected, access frequency not tracked. Please note that when switching between policies"
        + " at runtime LRU and LFU data will take some time to adjust."));
  }

  @Test
  void objectHelp_isRedisText() {
    assertThat(server.call("OBJECT", "HELP")).isEqualTo("*15\r\n"
        + "+OBJECT <subcommand> [<arg> [value] [opt] ...]. Subcommands are:\r\n"
        + "+ENCODING <key>\r\n"
        + "+    Return the kind of internal representation used in order to store the value\r\n"
        + "+    associated with a <key>.\r\n"
        + "+FREQ <key>\r\n"
        + "+    Return the access frequency index of the <key>. The returned integer is\r\n"
        + "+    proportional to the logarithm of the recent access frequency of the key.\r\n"
        + "+IDLETIME <key>\r\n"
        + "+    Return the idle time of the <key>, that is the approximated number of\r\n"
        + "+    seconds elapsed since the last access to the key.\r\n"
        + "+REFCOUNT <key>\r\n"
        + "+    Return the number of references of the value associated with the specified\r\n"
        + "+    <key>.\r\n"
        + "+HELP\r\n"
        + "+    Print this help.\r\n");
  }

  @Test
  void object_badSubcommandOrArity_areRedisErrors() {
    server.call("SET", "a", "1");
    assertThat(server.call("OBJECT", "foo", "a")).isEqualTo(error("ERR unknown subcommand 'foo'. Try OBJECT HELP."));
    assertThat(server.call("OBJECT", "Foo")).isEqualTo(error("ERR unknown subcommand 'Foo'. Try OBJECT HELP."));
    assertThat(server.call("OBJECT")).isEqualTo(error("ERR wrong number of arguments for 'object' command"));
    assertThat(server.call("OBJECT", "encoding"))
        .isEqualTo(error("ERR wrong number of arguments for 'object|encoding' command"));
    assertThat(server.call("OBJECT", "ENCODING", "a", "b"))
        .isEqualTo(error("ERR wrong number of arguments for 'object|encoding' command"));
    assertThat(server.call("OBJECT", "help", "x"))
        .isEqualTo(error("ERR wrong number of arguments for 'object|help' command"));
    assertThat(server.call("INFO", "commandstats"))
        .containsPattern("cmdstat_object\\|encoding:calls=0,[^\r]*,rejected_calls=2,failed_calls=0\r\n");
  }

  // ---- INFO ----

  @Test
  void infoKeyspace_countsLiveKeysAndExpiries() {
    server.call("SET", "a", "1");
    putWithTtl(0, "t1", "x", 10_000);
    putWithTtl(0, "t2", "x", 20_000);
    putWithTtl(0, "gone", "x", 100);
    putWithTtl(2, "only", "x", 100);
    server.clock().advanceMillis(101);
    assertThat(server.call("INFO", "keyspace"))
        .isEqualTo(bulk("# Keyspace\r\ndb0:keys=3,expires=2,avg_ttl=14899\r\n"));
  }

  @Test
  void infoStats_reportsActiveExpiry() {
    putWithTtl(0, "gone1", "x", 100);
    putWithTtl(0, "gone2", "x", 100);
    server.call("SET", "stay", "x");
    server.clock().advanceMillis(101);
    long removedBefore = server.store().expiryStats().removed();
    server.store().expireNow();
    long removed = server.store().expiryStats().removed();
    assertThat(removed - removedBefore).isEqualTo(2);
    assertThat(server.call("INFO", "stats"))
        .contains("\r\nexpired_keys:" + removed + "\r\n")
        .containsPattern("\r\nexpired_stale_perc:\\d+\\.\\d\\d\r\n")
        .containsPattern("\r\nexpire_cycle_cpu_milliseconds:\\d+\r\n");
  }

  @Test
  void info_keyspaceOnlyWhenAsked_lastByDefault() {
    server.call("SET", "a", "1");
    assertThat(server.call("INFO", "stats")).doesNotContain("Keyspace");
    assertThat(server.call("INFO")).endsWith("# Keyspace\r\ndb0:keys=1,expires=0,avg_ttl=0\r\n\r\n");
    assertThat(server.call("INFO", "all")).contains("# Keyspace\r\ndb0:keys=1");
  }

  // ---- expired keys are invisible ----

  @Test
  void keyspaceCommands_neverShowExpiredKeys() {
    Table t = server.table(0);
    for (int i = 0; i < 5; i++) {
      putWithTtl(0, "exp" + i, "x", 100);
    }
    server.call("SET", "live", "x");
    putWithTtl(0, "later", "x", 10_000);
    assertThat(server.call("DBSIZE")).isEqualTo(":7\r\n");
    server.clock().advanceMillis(101);
    assertThat(server.call("DBSIZE")).isEqualTo(":2\r\n");
    assertThat(server.call("KEYS", "*")).isEqualTo("*2\r\n" + bulk("later") + bulk("live"));
    assertThat(server.call("KEYS", "exp*")).isEqualTo("*0\r\n");
    assertThat(server.call("SCAN", "0", "COUNT", "100")).isEqualTo("*2\r\n" + bulk("0") + "*2\r\n" + bulk("later") + bulk("live"));
    assertThat(server.call("SCAN", "0", "MATCH", "exp*")).isEqualTo("*2\r\n" + bulk("0") + "*0\r\n");
    for (int i = 0; i < 50; i++) {
      assertThat(server.call("RANDOMKEY")).isIn(bulk("later"), bulk("live"));
    }
    assertThat(server.call("EXISTS", "exp0", "live")).isEqualTo(ONE);
    assertThat(server.call("TYPE", "exp0")).isEqualTo("+none\r\n");
    assertThat(t.getEntry(b("exp0"))).isNull();
    server.clock().advanceMillis(10_000);
    server.call("DEL", "live");
    assertThat(server.call("DBSIZE")).isEqualTo(ZERO);
    assertThat(server.call("RANDOMKEY")).isEqualTo(NIL);
    assertThat(server.call("KEYS", "*")).isEqualTo("*0\r\n");
    assertThat(server.call("INFO", "keyspace")).isEqualTo(bulk("# Keyspace\r\n"));
  }
}
