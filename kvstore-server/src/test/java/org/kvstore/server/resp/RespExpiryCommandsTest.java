package org.kvstore.server.resp;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The expiry commands and the expiry options of SET, SETEX, PSETEX and GETEX through the RESP
 * executor, on a store whose clock the test moves: Redis 7.2's replies and error texts, the
 * conditions of EXPIRE, which commands keep and which drop a key's expiry, and that an expired key
 * is absent for every command.
 */
class RespExpiryCommandsTest {
  private static final String INTEGER = "-ERR value is not an integer or out of range";
  private static final String SYNTAX = "-ERR syntax error";

  @RegisterExtension final RespScratch redis = new RespScratch();

  private long now() {
    return redis.clock().millis();
  }

  private String call(String... args) {
    return redis.call(args);
  }

  @Test
  void expire_setsTheTimeToLive_reportedByTtlPttlExpiretimeAndPexpiretime() {
    call("SET", "k", "v");
    long start = now();
    assertThat(call("EXPIRE", "k", "100")).isEqualTo(":1");
    assertThat(call("TTL", "k")).isEqualTo(":100");
    assertThat(call("PTTL", "k")).isEqualTo(":100000");
    assertThat(call("PEXPIRETIME", "k")).isEqualTo(":" + (start + 100_000));
    assertThat(call("EXPIRETIME", "k")).isEqualTo(":" + (start + 100_000 + 500) / 1000);

    redis.clock().advanceMillis(100_000);
    assertThat(call("PTTL", "k")).as("the last millisecond").isEqualTo(":0");
    assertThat(call("GET", "k")).isEqualTo("$v");
    redis.clock().advanceMillis(1);
    assertThat(call("GET", "k")).isEqualTo("$nil");
    assertThat(call("TTL", "k")).isEqualTo(":-2");
  }

  @Test
  void ttl_absentKey_minusTwo_keyWithoutExpiry_minusOne() {
    for (String cmd : new String[] {"TTL", "PTTL", "EXPIRETIME", "PEXPIRETIME"}) {
      assertThat(call(cmd, "missing")).as(cmd).isEqualTo(":-2");
    }
    call("SET", "k", "v");
    for (String cmd : new String[] {"TTL", "PTTL", "EXPIRETIME", "PEXPIRETIME"}) {
      assertThat(call(cmd, "k")).as(cmd).isEqualTo(":-1");
    }
  }

  @Test
  void ttl_roundsToTheNearestSecond() {
    call("SET", "k", "v");
    call("PEXPIRE", "k", "1499");
    assertThat(call("TTL", "k")).isEqualTo(":1");
    call("PEXPIRE", "k", "1500");
    assertThat(call("TTL", "k")).isEqualTo(":2");
  }

  @Test
  void expire_conditions_nxXxGtLt() {
    call("SET", "k", "v");
    assertThat(call("EXPIRE", "k", "100", "XX")).as("XX without expiry").isEqualTo(":0");
    assertThat(call("EXPIRE", "k", "100", "GT")).as("GT: no expiry is infinite").isEqualTo(":0");
    assertThat(call("TTL", "k")).isEqualTo(":-1");
    assertThat(call("EXPIRE", "k", "100", "NX")).isEqualTo(":1");
    assertThat(call("EXPIRE", "k", "200", "NX")).as("NX with expiry").isEqualTo(":0");
    assertThat(call("EXPIRE", "k", "50", "GT")).isEqualTo(":0");
    assertThat(call("EXPIRE", "k", "150", "gt")).isEqualTo(":1");
    assertThat(call("EXPIRE", "k", "200", "LT")).isEqualTo(":0");
    assertThat(call("EXPIRE", "k", "120", "XX", "LT")).isEqualTo(":1");
    assertThat(call("TTL", "k")).isEqualTo(":120");
    call("PERSIST", "k");
    assertThat(call("EXPIRE", "k", "300", "LT")).as("LT: anything beats no expiry").isEqualTo(":1");
    assertThat(call("TTL", "k")).isEqualTo(":300");
    assertThat(call("EXPIRE", "missing", "10")).isEqualTo(":0");
  }

  @Test
  void expire_incompatibleOrUnknownOptions_redisErrors() {
    call("SET", "k", "v");
    String nx = "-ERR NX and XX, GT or LT options at the same time are not compatible";
    assertThat(call("EXPIRE", "k", "10", "NX", "XX")).isEqualTo(nx);
    assertThat(call("PEXPIRE", "k", "10", "GT", "NX")).isEqualTo(nx);
    assertThat(call("EXPIREAT", "k", "10", "NX", "LT")).isEqualTo(nx);
    assertThat(call("EXPIRE", "k", "10", "GT", "LT"))
        .isEqualTo("-ERR GT and LT options at the same time are not compatible");
    assertThat(call("EXPIRE", "k", "10", "Foo")).isEqualTo("-ERR Unsupported option Foo");
    assertThat(call("EXPIRE", "k", "ten", "Foo")).as("options first").isEqualTo("-ERR Unsupported option Foo");
    assertThat(call("EXPIRE", "k", "ten")).isEqualTo(INTEGER);
    assertThat(call("EXPIRE", "k", "")).isEqualTo(INTEGER);
    assertThat(call("EXPIRE", "k")).isEqualTo("-ERR wrong number of arguments for 'expire' command");
    assertThat(call("TTL", "k")).isEqualTo(":-1");
  }

  @Test
  void expire_timeInThePast_deletesTheKey_andAnswersOne() {
    call("SET", "a", "v");
    assertThat(call("EXPIRE", "a", "-1")).isEqualTo(":1");
    assertThat(call("EXISTS", "a")).isEqualTo(":0");
    call("SET", "b", "v");
    assertThat(call("EXPIREAT", "b", "1")).isEqualTo(":1");
    assertThat(call("GET", "b")).isEqualTo("$nil");
    call("SET", "c", "v");
    assertThat(call("PEXPIREAT", "c", Long.toString(now()))).as("now is past").isEqualTo(":1");
    assertThat(call("EXISTS", "c")).isEqualTo(":0");
    call("SET", "d", "v");
    assertThat(call("PEXPIRE", "d", "0")).isEqualTo(":1");
    assertThat(call("EXISTS", "d")).isEqualTo(":0");
    assertThat(call("EXPIRE", "d", "-1")).as("absent").isEqualTo(":0");
  }

  @Test
  void expire_overflow_invalidExpireTimeNamingTheCommand() {
    call("SET", "k", "v");
    String max = Long.toString(Long.MAX_VALUE);
    assertThat(call("EXPIRE", "k", max)).isEqualTo("-ERR invalid expire time in 'expire' command");
    assertThat(call("EXPIRE", "k", Long.toString(Long.MIN_VALUE)))
        .isEqualTo("-ERR invalid expire time in 'expire' command");
    assertThat(call("PEXPIRE", "k", max)).isEqualTo("-ERR invalid expire time in 'pexpire' command");
    assertThat(call("EXPIREAT", "k", Long.toString(Long.MAX_VALUE / 1000 + 1)))
        .isEqualTo("-ERR invalid expire time in 'expireat' command");
    assertThat(call("pexpire", "missing", max)).as("checked before the key")
        .isEqualTo("-ERR invalid expire time in 'pexpire' command");
    assertThat(call("TTL", "k")).isEqualTo(":-1");
    assertThat(call("PEXPIREAT", "k", max)).isEqualTo(":1");
    assertThat(call("PEXPIRETIME", "k")).isEqualTo(":" + max);
  }

  @Test
  void persist_removesTheExpiry_zeroWhenAbsentOrWithout() {
    assertThat(call("PERSIST", "missing")).isEqualTo(":0");
    call("SET", "k", "v");
    assertThat(call("PERSIST", "k")).isEqualTo(":0");
    call("EXPIRE", "k", "100");
    assertThat(call("PERSIST", "k")).isEqualTo(":1");
    assertThat(call("TTL", "k")).isEqualTo(":-1");
    redis.clock().advanceMillis(200_000);
    assertThat(call("GET", "k")).isEqualTo("$v");
  }

  @Test
  void set_expiryOptions_setTheTimeToLive() {
    assertThat(call("SET", "ex", "v", "EX", "10")).isEqualTo("+OK");
    assertThat(call("TTL", "ex")).isEqualTo(":10");
    assertThat(call("SET", "px", "v", "px", "1500")).isEqualTo("+OK");
    assertThat(call("PTTL", "px")).isEqualTo(":1500");
    long at = now() / 1000 + 100;
    assertThat(call("SET", "exat", "v", "EXAT", Long.toString(at))).isEqualTo("+OK");
    assertThat(call("EXPIRETIME", "exat")).isEqualTo(":" + at);
    assertThat(call("SET", "pxat", "v", "PXAT", Long.toString(now() + 777))).isEqualTo("+OK");
    assertThat(call("PTTL", "pxat")).isEqualTo(":777");
    assertThat(call("SET", "ex", "v", "EX", "10", "EX", "20")).as("repeated: the last wins").isEqualTo("+OK");
    assertThat(call("TTL", "ex")).isEqualTo(":20");
    assertThat(call("SET", "past", "v", "PXAT", "1")).isEqualTo("+OK");
    assertThat(call("GET", "past")).isEqualTo("$nil");

    redis.clock().advanceMillis(1501);
    assertThat(call("GET", "px")).isEqualTo("$nil");
    assertThat(call("GET", "ex")).isEqualTo("$v");
  }

  @Test
  void set_plainDropsTheExpiry_keepTtlKeepsIt() {
    call("SET", "k", "v", "EX", "100");
    assertThat(call("SET", "k", "w", "KEEPTTL")).isEqualTo("+OK");
    assertThat(call("TTL", "k")).isEqualTo(":100");
    assertThat(call("SET", "k", "x", "GET", "KEEPTTL")).isEqualTo("$w");
    assertThat(call("TTL", "k")).isEqualTo(":100");
    assertThat(call("SET", "k", "y")).isEqualTo("+OK");
    assertThat(call("TTL", "k")).isEqualTo(":-1");
    assertThat(call("SET", "fresh", "v", "KEEPTTL")).isEqualTo("+OK");
    assertThat(call("TTL", "fresh")).isEqualTo(":-1");
  }

  @Test
  void set_conditionsWithExpiry() {
    assertThat(call("SET", "k", "1", "NX", "EX", "100")).isEqualTo("+OK");
    assertThat(call("SET", "k", "2", "NX", "EX", "200")).isEqualTo("$nil");
    assertThat(call("TTL", "k")).isEqualTo(":100");
    assertThat(call("SET", "k", "3", "XX", "GET", "PX", "5000")).isEqualTo("$1");
    assertThat(call("PTTL", "k")).isEqualTo(":5000");
    assertThat(call("SET", "missing", "v", "XX", "EX", "5")).isEqualTo("$nil");
    assertThat(call("EXISTS", "missing")).isEqualTo(":0");
    redis.clock().advanceMillis(5001);
    assertThat(call("SET", "k", "4", "NX", "GET", "EX", "1")).as("expired: absent").isEqualTo("$nil");
    assertThat(call("GET", "k")).isEqualTo("$4");
  }

  @Test
  void set_badExpiryOptions_syntaxOrInvalidExpireTime() {
    String invalid = "-ERR invalid expire time in 'set' command";
    assertThat(call("SET", "k", "v", "EX", "10", "KEEPTTL")).isEqualTo(SYNTAX);
    assertThat(call("SET", "k", "v", "KEEPTTL", "PX", "10")).isEqualTo(SYNTAX);
    assertThat(call("SET", "k", "v", "EX", "10", "PX", "10")).isEqualTo(SYNTAX);
    assertThat(call("SET", "k", "v", "EXAT", "10", "PXAT", "10")).isEqualTo(SYNTAX);
    assertThat(call("SET", "k", "v", "EX")).isEqualTo(SYNTAX);
    assertThat(call("SET", "k", "v", "NX", "XX", "EX", "10")).isEqualTo(SYNTAX);
    assertThat(call("SET", "k", "v", "PERSIST")).isEqualTo(SYNTAX);
    assertThat(call("SET", "k", "v", "EX", "0")).isEqualTo(invalid);
    assertThat(call("SET", "k", "v", "PX", "-1")).isEqualTo(invalid);
    assertThat(call("SET", "k", "v", "EXAT", "0")).isEqualTo(invalid);
    assertThat(call("SET", "k", "v", "EX", Long.toString(Long.MAX_VALUE / 1000 + 1))).isEqualTo(invalid);
    assertThat(call("SET", "k", "v", "PX", Long.toString(Long.MAX_VALUE))).as("overflows with now").isEqualTo(invalid);
    assertThat(call("SET", "k", "v", "EX", "ten")).isEqualTo(INTEGER);
    assertThat(call("SET", "k", "v", "EX", "ten", "KEEPTTL")).as("syntax first").isEqualTo(SYNTAX);
    assertThat(call("EXISTS", "k")).isEqualTo(":0");
  }

  @Test
  void setexAndPsetex_setValueAndTimeToLive_orRefuseTheTime() {
    assertThat(call("SETEX", "k", "10", "v")).isEqualTo("+OK");
    assertThat(call("GET", "k")).isEqualTo("$v");
    assertThat(call("TTL", "k")).isEqualTo(":10");
    assertThat(call("PSETEX", "p", "1234", "v")).isEqualTo("+OK");
    assertThat(call("PTTL", "p")).isEqualTo(":1234");
    assertThat(call("SETEX", "k", "0", "v")).isEqualTo("-ERR invalid expire time in 'setex' command");
    assertThat(call("SETEX", "k", "-10", "v")).isEqualTo("-ERR invalid expire time in 'setex' command");
    assertThat(call("PSETEX", "k", "0", "v")).isEqualTo("-ERR invalid expire time in 'psetex' command");
    assertThat(call("SETEX", "k", "ten", "v")).isEqualTo(INTEGER);
    assertThat(call("SETEX", "k", "10")).isEqualTo("-ERR wrong number of arguments for 'setex' command");
    assertThat(call("TTL", "k")).isEqualTo(":10");
  }

  @Test
  void getex_changesOrRemovesTheExpiry_andReturnsTheValue() {
    call("SET", "k", "v");
    assertThat(call("GETEX", "k")).isEqualTo("$v");
    assertThat(call("TTL", "k")).isEqualTo(":-1");
    assertThat(call("GETEX", "k", "EX", "100")).isEqualTo("$v");
    assertThat(call("TTL", "k")).isEqualTo(":100");
    assertThat(call("GETEX", "k", "PX", "2500")).isEqualTo("$v");
    assertThat(call("PTTL", "k")).isEqualTo(":2500");
    assertThat(call("GETEX", "k", "PXAT", Long.toString(now() + 42))).isEqualTo("$v");
    assertThat(call("PTTL", "k")).isEqualTo(":42");
    assertThat(call("GETEX", "k", "EXAT", Long.toString(now() / 1000 + 60))).isEqualTo("$v");
    assertThat(call("EXPIRETIME", "k")).isEqualTo(":" + (now() / 1000 + 60));
    assertThat(call("GETEX", "k", "PERSIST")).isEqualTo("$v");
    assertThat(call("TTL", "k")).isEqualTo(":-1");
    assertThat(call("GETEX", "k", "EXAT", "1")).as("a past time deletes, the value is returned").isEqualTo("$v");
    assertThat(call("EXISTS", "k")).isEqualTo(":0");
  }

  @Test
  void getex_badOptions_syntaxError_badTime_invalidExpireTime_absentKey_nil() {
    call("SET", "k", "v");
    for (String[] opts : new String[][] {{"NX"}, {"KEEPTTL"}, {"GET"}, {"EX"}, {"EX", "10", "PERSIST"},
        {"PERSIST", "PX", "10"}, {"EX", "10", "PX", "10"}}) {
      String[] args = new String[2 + opts.length];
      args[0] = "GETEX";
      args[1] = "k";
      System.arraycopy(opts, 0, args, 2, opts.length);
      assertThat(call(args)).as("GETEX k %s", String.join(" ", opts)).isEqualTo(SYNTAX);
    }
    assertThat(call("GETEX", "k", "EX", "-1")).isEqualTo("-ERR invalid expire time in 'getex' command");
    assertThat(call("GETEX", "k", "EX", "x")).isEqualTo(INTEGER);
    assertThat(call("GETEX", "missing", "EX", "-1")).as("absent before the time is checked").isEqualTo("$nil");
    assertThat(call("TTL", "k")).isEqualTo(":-1");
  }

  @Test
  void inPlaceModifications_keepTheExpiry_replacingWritesDropIt() {
    call("SET", "n", "1", "EX", "100");
    call("INCR", "n");
    call("INCRBY", "n", "5");
    call("DECR", "n");
    call("DECRBY", "n", "2");
    call("INCRBYFLOAT", "n", "0.5");
    call("APPEND", "n", "0");
    call("SETRANGE", "n", "0", "9");
    call("SETBIT", "n", "100", "1");
    assertThat(call("TTL", "n")).isEqualTo(":100");

    call("SET", "g", "1", "EX", "100");
    assertThat(call("GETSET", "g", "2")).isEqualTo("$1");
    assertThat(call("TTL", "g")).as("GETSET").isEqualTo(":-1");
    call("SET", "m", "1", "EX", "100");
    call("MSET", "m", "2");
    assertThat(call("TTL", "m")).as("MSET").isEqualTo(":-1");
  }

  @Test
  void rename_carriesTheSourceExpiry_toTheTarget() {
    call("SET", "a", "1", "EX", "100");
    call("SET", "b", "2");
    assertThat(call("RENAME", "a", "b")).isEqualTo("+OK");
    assertThat(call("TTL", "b")).isEqualTo(":100");
    assertThat(call("GET", "b")).isEqualTo("$1");
    call("SET", "c", "3");
    call("SET", "d", "4", "EX", "50");
    assertThat(call("RENAME", "c", "d")).isEqualTo("+OK");
    assertThat(call("TTL", "d")).as("the target's own expiry is replaced").isEqualTo(":-1");
    assertThat(call("RENAMENX", "b", "e")).isEqualTo(":1");
    assertThat(call("TTL", "e")).isEqualTo(":100");
    redis.clock().advanceMillis(100_001);
    assertThat(call("RENAME", "e", "f")).isEqualTo("-ERR no such key");
  }

  @Test
  void expiredKey_isAbsentForEveryCommand() {
    call("SET", "k", "value", "PX", "100");
    call("SET", "n", "7", "PX", "100");
    redis.clock().advanceMillis(101);
    assertThat(call("GET", "k")).isEqualTo("$nil");
    assertThat(call("EXISTS", "k")).isEqualTo(":0");
    assertThat(call("STRLEN", "k")).isEqualTo(":0");
    assertThat(call("TYPE", "k")).isEqualTo("+none");
    assertThat(call("MGET", "k", "n")).isEqualTo("[$nil, $nil]");
    assertThat(call("INCR", "n")).as("counts from 0 again, without expiry").isEqualTo(":1");
    assertThat(call("TTL", "n")).isEqualTo(":-1");
    assertThat(call("SETNX", "k", "new")).isEqualTo(":1");
    assertThat(call("TTL", "k")).isEqualTo(":-1");
  }

  @Test
  void multiExec_commandsSeeAndSetExpiries_writtenWithTheirAbsoluteTime() {
    call("SET", "t", "old", "EX", "500");
    call("MULTI");
    call("SET", "k", "v", "EX", "100");
    call("TTL", "k");
    call("PEXPIRE", "k", "50000");
    call("PTTL", "k");
    call("INCR", "c");
    call("EXPIRE", "c", "30");
    call("TTL", "t");
    call("PERSIST", "t");
    call("GETEX", "t", "PX", "1234");
    call("RENAME", "t", "u");
    call("SETEX", "gone", "10", "v");
    call("EXPIRE", "gone", "-1");
    call("EXISTS", "gone");
    assertThat(call("EXEC")).isEqualTo(
        "[+OK, :100, :1, :50000, :1, :1, :500, :1, $old, +OK, +OK, :1, :0]");
    assertThat(call("PTTL", "k")).isEqualTo(":50000");
    assertThat(call("TTL", "c")).isEqualTo(":30");
    assertThat(call("PTTL", "u")).isEqualTo(":1234");
    assertThat(call("EXISTS", "t", "gone")).isEqualTo(":0");
    redis.clock().advanceMillis(30_001);
    assertThat(call("GET", "c")).isEqualTo("$nil");
    assertThat(call("GET", "k")).isEqualTo("$v");
  }

  @Test
  void multiExec_keyExpiringDuringTheTransaction_isAbsentFromThenOn() {
    call("SET", "k", "v", "PX", "10");
    call("MULTI");
    call("GET", "k");
    call("SET", "k", "w", "KEEPTTL");
    assertThat(call("EXEC")).isEqualTo("[$v, +OK]");
    assertThat(call("PTTL", "k")).isEqualTo(":10");
    redis.clock().advanceMillis(11);
    call("MULTI");
    call("GET", "k");
    call("INCR", "k");
    call("TTL", "k");
    assertThat(call("EXEC")).isEqualTo("[$nil, :1, :-1]");
  }

  @Test
  void watch_keyChangedAndChangedBack_abortsExec() {
    RespSession other = redis.connect();
    call("SET", "a", "1");
    call("WATCH", "a");
    redis.call(other, "SET", "a", "2");
    redis.call(other, "SET", "a", "1");
    call("MULTI");
    call("SET", "a", "3");
    assertThat(call("EXEC")).isEqualTo("*nil");
    assertThat(call("GET", "a")).isEqualTo("$1");
  }

  @Test
  void watch_expiryChangedByAnotherConnection_abortsExec() {
    RespSession other = redis.connect();
    call("SET", "a", "1", "EX", "100");
    call("WATCH", "a");
    redis.call(other, "EXPIRE", "a", "200");
    call("MULTI");
    call("GET", "a");
    assertThat(call("EXEC")).isEqualTo("*nil");

    call("WATCH", "a");
    redis.call(other, "PERSIST", "a");
    call("MULTI");
    call("GET", "a");
    assertThat(call("EXEC")).isEqualTo("*nil");
  }

  @Test
  void watch_watchedKeyExpires_abortsExec() {
    call("SET", "a", "1", "PX", "100");
    call("WATCH", "a");
    redis.clock().advanceMillis(101);
    call("MULTI");
    call("SET", "b", "2");
    assertThat(call("EXEC")).isEqualTo("*nil");
    assertThat(call("EXISTS", "b")).isEqualTo(":0");
  }

  @Test
  void watch_keyOfAnotherTableChanged_abortsExec() {
    RespSession other = redis.connect();
    call("SET", "a", "1");
    call("WATCH", "a");
    call("SELECT", "1");
    redis.call(other, "SET", "a", "1");
    call("MULTI");
    call("SET", "b", "2");
    assertThat(call("EXEC")).isEqualTo("*nil");
  }

  @Test
  void watch_unchangedKeys_runExec() {
    call("SET", "a", "1", "EX", "100");
    call("WATCH", "a", "absent");
    redis.clock().advanceMillis(99_000);
    call("MULTI");
    call("INCR", "a");
    assertThat(call("EXEC")).isEqualTo("[:2]");
    assertThat(call("TTL", "a")).isEqualTo(":1");
  }
}
