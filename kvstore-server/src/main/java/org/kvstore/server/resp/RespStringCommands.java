package org.kvstore.server.resp;

import static org.kvstore.server.resp.RespCommandSpec.FAST;
import static org.kvstore.server.resp.RespCommandSpec.READONLY;
import static org.kvstore.server.resp.RespCommandSpec.SLOW;
import static org.kvstore.server.resp.RespCommandSpec.WRITE;
import static org.kvstore.server.resp.RespCommandSpec.command;
import static org.kvstore.server.resp.RespConnectionCommands.str;

import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.kvstore.Entry;
import org.kvstore.Table;
import org.kvstore.server.command.CommandException;
import org.kvstore.server.command.ExpiryCommands;
import org.kvstore.server.command.Keyspace;
import org.kvstore.server.command.LongestCommonSubsequence;
import org.kvstore.server.command.RedisNumbers;
import org.kvstore.server.command.SetOptions;
import org.kvstore.server.command.SetResult;
import org.kvstore.server.command.StringCommands;

/**
 * The RESP string commands: their specs, argument parsing and replies, over the protocol-neutral
 * {@link StringCommands}.
 *
 * <p>SET's expiry options are resolved against the store's clock ({@link ExpiryCommands#clock()}).
 *
 * <p>Thread safety: thread-safe.
 */
final class RespStringCommands {
  /** Keys of an MGET above which it runs on a worker and builds its reply encoded. */
  static final int LARGE_MGET = 1024;
  /** Keys a large MGET reads together. */
  static final int MGET_STEP = 256;

  private final Keyspace keyspace;
  private final StringCommands strings;
  private final Clock clock;

  RespStringCommands(Keyspace keyspace, StringCommands strings, Clock clock) {
    this.keyspace = keyspace;
    this.strings = strings;
    this.clock = clock;
  }

  /** GET; on a cluster node after {@code READONLY}, a replica read ({@code cluster-replica-reads}). */
  private RespMessage get(RespSession s, RespRequest r) {
    Table t = t(s);
    if (s.clusterReadOnly() && t instanceof org.kvstore.cluster.ShardedTable sharded) {
      org.kvstore.Entry e = sharded.getStale(r.arg(1));
      return RespMessage.bulkOrNull(e == null ? null : e.value());
    }
    return RespMessage.bulkOrNull(strings.get(t, r.arg(1)));
  }

  List<RespCommandSpec> specs() {
    return List.of(
        command("get", 2).flags(READONLY | FAST).keys(1, 1, 1).doc("string", "Returns the string value of a key.")
            .handler(this::get),
        command("set", -3).flags(WRITE).keys(1, 1, 1).doc("string", "Sets the string value of a key.")
            .handler(this::set),
        command("setnx", 3).flags(WRITE | FAST).keys(1, 1, 1).doc("string", "Sets the value of a key only when it does not exist.")
            .handler((s, r) -> RespMessage.integer(strings.setIfAbsent(t(s), r.arg(1), r.arg(2)) ? 1 : 0)),
        command("getset", 3).flags(WRITE | FAST).keys(1, 1, 1).doc("string", "Returns the old value and sets a new one.")
            .handler((s, r) -> RespMessage.bulkOrNull(strings.getAndSet(t(s), r.arg(1), r.arg(2)))),
        command("getdel", 2).flags(WRITE | FAST).keys(1, 1, 1).doc("string", "Returns the value of a key and deletes it.")
            .handler((s, r) -> RespMessage.bulkOrNull(strings.getAndDelete(t(s), r.arg(1)))),
        command("del", -2).flags(WRITE).keys(1, -1, 1).doc("keyspace", "Deletes one or more keys.")
            .handler((s, r) -> RespMessage.integer(strings.delete(t(s), r.args().subList(1, r.size())))),
        command("unlink", -2).flags(WRITE | FAST).keys(1, -1, 1).doc("keyspace", "Deletes one or more keys.")
            .handler((s, r) -> RespMessage.integer(strings.delete(t(s), r.args().subList(1, r.size())))),
        command("exists", -2).flags(READONLY | FAST).keys(1, -1, 1).doc("keyspace", "Counts how many of the keys exist.")
            .handler((s, r) -> RespMessage.integer(strings.countExisting(t(s), r.args().subList(1, r.size())))),
        command("mget", -2).flags(READONLY | FAST).keys(1, -1, 1).doc("string", "Returns the values of one or more keys.")
            .handler(this::mget),
        command("mset", -3).flags(WRITE).keys(1, -1, 2).doc("string", "Sets the values of one or more keys, atomically.")
            .handler((s, r) -> {
              byte[][][] pairs = pairs(r, "mset");
              strings.multiSet(t(s), pairs[0], pairs[1]);
              return RespMessage.OK;
            }),
        command("msetnx", -3).flags(WRITE).keys(1, -1, 2).doc("string", "Sets keys only when none of them exists, atomically.")
            .handler((s, r) -> {
              byte[][][] pairs = pairs(r, "msetnx");
              return RespMessage.integer(strings.multiSetIfNoneExists(t(s), pairs[0], pairs[1]) ? 1 : 0);
            }),
        command("incr", 2).flags(WRITE | FAST).keys(1, 1, 1).doc("string", "Increments the integer value of a key by one.")
            .handler((s, r) -> RespMessage.integer(strings.incrementBy(t(s), r.arg(1), 1))),
        command("decr", 2).flags(WRITE | FAST).keys(1, 1, 1).doc("string", "Decrements the integer value of a key by one.")
            .handler((s, r) -> RespMessage.integer(strings.incrementBy(t(s), r.arg(1), -1))),
        command("incrby", 3).flags(WRITE | FAST).keys(1, 1, 1).doc("string", "Increments the integer value of a key by a number.")
            .handler((s, r) -> RespMessage.integer(strings.incrementBy(t(s), r.arg(1), RedisNumbers.parseLong(r.arg(2))))),
        command("decrby", 3).flags(WRITE | FAST).keys(1, 1, 1).doc("string", "Decrements the integer value of a key by a number.")
            .handler((s, r) -> {
              long by = RedisNumbers.parseLong(r.arg(2));
              if (by == Long.MIN_VALUE) {
                throw new CommandException("ERR decrement would overflow");
              }
              return RespMessage.integer(strings.incrementBy(t(s), r.arg(1), -by));
            }),
        command("incrbyfloat", 3).flags(WRITE | FAST).keys(1, 1, 1).doc("string", "Increments the floating point value of a key by a number.")
            .handler((s, r) -> new RespMessage.BulkString(
                strings.incrementByFloat(t(s), r.arg(1), RedisNumbers.parseFloat(r.arg(2))))),
        command("append", 3).flags(WRITE | FAST).keys(1, 1, 1).doc("string", "Appends a string to the value of a key.")
            .handler((s, r) -> RespMessage.integer(strings.append(t(s), r.arg(1), r.arg(2)))),
        command("strlen", 2).flags(READONLY | FAST).keys(1, 1, 1).doc("string", "Returns the length of a string value.")
            .handler((s, r) -> RespMessage.integer(strings.length(t(s), r.arg(1)))),
        command("getrange", 4).flags(READONLY).keys(1, 1, 1).doc("string", "Returns a substring of the string value.")
            .handler(this::getRange),
        command("substr", 4).flags(READONLY).keys(1, 1, 1).doc("string", "Returns a substring from a string value.")
            .handler(this::getRange),
        command("setrange", 4).flags(WRITE).keys(1, 1, 1).doc("string", "Overwrites part of a string value from an offset.")
            .handler((s, r) -> RespMessage.integer(
                strings.setRange(t(s), r.arg(1), RedisNumbers.parseLong(r.arg(2)), r.arg(3)))),
        // SLOW: the table it builds is quadratic in the values' lengths, so it runs on a worker.
        command("lcs", -3).flags(READONLY | SLOW).keys(1, 2, 1).doc("string", "Finds the longest common substring.")
            .handler(this::lcs));
  }

  private Table t(RespSession s) {
    return s.table(keyspace);
  }

  /**
   * {@code MGET key [key ...]}. Up to {@link #LARGE_MGET} keys are read together; a larger one
   * (which runs on a worker, {@link RespCommandExecutor#mayBlock}) reads them {@link #MGET_STEP} at
   * a time into a reply encoded part by part against the client's output budget and sent as it is
   * made ({@link ReplyArrayBuilder#streaming}), so a million keys never become a million reply
   * objects, and a client that reads gets a reply of any size while the server holds about 1 MiB
   * of it.
   */
  private RespMessage mget(RespSession s, RespRequest r) {
    int n = r.size() - 1;
    Table t = t(s);
    if (n <= LARGE_MGET) {
      byte[][] keys = new byte[n][];
      for (int i = 0; i < n; i++) {
        keys[i] = r.arg(i + 1);
      }
      byte[][] values = new byte[n][];
      strings.multiGet(t, keys, values);
      List<RespMessage> out = new ArrayList<>(n);
      for (byte[] v : values) {
        out.add(RespMessage.bulkOrNull(v));
      }
      return new RespMessage.ArrayReply(out);
    }
    ReplyArrayBuilder out = ReplyArrayBuilder.streaming(s, n);
    try {
      byte[][] keys = new byte[MGET_STEP][];
      byte[][] values = new byte[MGET_STEP][];
      for (int from = 0; from < n; from += MGET_STEP) {
        int m = Math.min(MGET_STEP, n - from);
        if (m < MGET_STEP) {
          keys = new byte[m][];
          values = new byte[m][];
        }
        for (int i = 0; i < m; i++) {
          keys[i] = r.arg(from + i + 1);
        }
        strings.multiGet(t, keys, values);
        for (int i = 0; i < m; i++) {
          out.addBulk(values[i]);
          values[i] = null;
        }
      }
    } catch (RuntimeException e) {
      out.discard();
      if (out.streamed()) {
        out.abort();
      }
      throw e;
    }
    return out.build();
  }

  /** {@code GETRANGE key start end} and its old name {@code SUBSTR}. */
  private RespMessage getRange(RespSession s, RespRequest r) {
    long start = RedisNumbers.parseLong(r.arg(2));
    long end = RedisNumbers.parseLong(r.arg(3));
    byte[] v = strings.getRange(t(s), r.arg(1), start, end);
    return v.length == 0 ? RespMessage.EMPTY_BULK : new RespMessage.BulkString(v);
  }

  /**
   * {@code LCS key1 key2 [LEN] [IDX] [MINMATCHLEN len] [WITHMATCHLEN]}: the subsequence, its length
   * (LEN), or with IDX the map {@code matches} (each {@code [[aStart, aEnd], [bStart, bEnd]]}, plus
   * the run's length with WITHMATCHLEN) and {@code len}.
   */
  private RespMessage lcs(RespSession s, RespRequest r) {
    boolean idx = false;
    boolean len = false;
    boolean withMatchLen = false;
    long minMatchLen = 0;
    for (int i = 3; i < r.size(); i++) {
      String opt = str(r.arg(i)).toUpperCase(Locale.ROOT);
      boolean more = i + 1 < r.size();
      switch (opt) {
        case "IDX" -> idx = true;
        case "LEN" -> len = true;
        case "WITHMATCHLEN" -> withMatchLen = true;
        default -> {
          if (!opt.equals("MINMATCHLEN") || !more) {
            throw new CommandException(CommandException.SYNTAX);
          }
          minMatchLen = Math.max(0, RedisNumbers.parseLong(r.arg(++i)));
        }
      }
    }
    if (idx && len) {
      throw new CommandException("ERR If you want both the length and indexes, please just use IDX.");
    }
    LongestCommonSubsequence lcs = strings.longestCommonSubsequence(t(s), r.arg(1), r.arg(2), minMatchLen);
    if (len) {
      return RespMessage.integer(lcs.length());
    }
    if (!idx) {
      return lcs.length() == 0 ? RespMessage.EMPTY_BULK : new RespMessage.BulkString(lcs.sequence());
    }
    List<RespMessage> matches = new ArrayList<>(lcs.matches().size());
    for (LongestCommonSubsequence.Match m : lcs.matches()) {
      List<RespMessage> entry = new ArrayList<>(3);
      entry.add(new RespMessage.ArrayReply(List.of(RespMessage.integer(m.aStart()), RespMessage.integer(m.aEnd()))));
      entry.add(new RespMessage.ArrayReply(List.of(RespMessage.integer(m.bStart()), RespMessage.integer(m.bEnd()))));
      if (withMatchLen) {
        entry.add(RespMessage.integer(m.length()));
      }
      matches.add(new RespMessage.ArrayReply(entry));
    }
    return new RespMessage.MapReply(
        List.of(RespMessage.bulk("matches"), RespMessage.bulk("len")),
        List.of(new RespMessage.ArrayReply(matches), RespMessage.integer(lcs.length())));
  }

  // ---- SET ----

  private RespMessage set(RespSession s, RespRequest r) {
    SetOptions options = setOptions(r, clock.millis());
    SetResult result = strings.set(t(s), r.arg(1), r.arg(2), options);
    if (options.returnOld()) {
      return RespMessage.bulkOrNull(result.old());
    }
    return result.written() ? RespMessage.OK : RespMessage.NULL;
  }

  /**
   * The options of {@code SET key value [NX|XX] [GET] [EX s|PX ms|EXAT t|PXAT t|KEEPTTL]}, parsed as
   * Redis' {@code parseExtendedStringArgumentsOrReply} does (options in any order, a repeated one
   * allowed, the last time winning), the expiry resolved against {@code nowMillis} (the store's
   * clock) as Redis' {@code getExpireMillisecondsOrReply} does.
   *
   * @throws CommandException {@code ERR syntax error}, {@code ERR value is not an integer or out of
   *     range}, {@code ERR invalid expire time in 'set' command}
   */
  static SetOptions setOptions(RespRequest r, long nowMillis) {
    if (r.size() == 3) {
      return SetOptions.PLAIN;
    }
    boolean nx = false;
    boolean xx = false;
    boolean get = false;
    boolean keepTtl = false;
    String unit = null;
    byte[] time = null;
    for (int i = 3; i < r.size(); i++) {
      String opt = str(r.arg(i)).toUpperCase(Locale.ROOT);
      boolean hasNext = i + 1 < r.size();
      switch (opt) {
        case "NX" -> {
          if (xx) {
            throw new CommandException(CommandException.SYNTAX);
          }
          nx = true;
        }
        case "XX" -> {
          if (nx) {
            throw new CommandException(CommandException.SYNTAX);
          }
          xx = true;
        }
        case "GET" -> get = true;
        case "KEEPTTL" -> {
          if (unit != null) {
            throw new CommandException(CommandException.SYNTAX);
          }
          keepTtl = true;
        }
        case "EX", "PX", "EXAT", "PXAT" -> {
          if (keepTtl || (unit != null && !unit.equals(opt)) || !hasNext) {
            throw new CommandException(CommandException.SYNTAX);
          }
          unit = opt;
          time = r.arg(++i);
        }
        default -> throw new CommandException(CommandException.SYNTAX);
      }
    }
    long expireAt = Entry.NO_EXPIRY;
    if (unit != null) {
      expireAt = ExpiryCommands.setExpiryTime(
          time, unit.startsWith("E"), !unit.endsWith("AT"), nowMillis, "set");
    }
    SetOptions.Condition condition = nx ? SetOptions.Condition.IF_ABSENT
        : xx ? SetOptions.Condition.IF_PRESENT : SetOptions.Condition.ALWAYS;
    return new SetOptions(condition, get, expireAt, keepTtl);
  }

  /** The keys and the values of {@code name key value [key value ...]}. */
  private static byte[][][] pairs(RespRequest r, String name) {
    if (r.size() % 2 != 1) {
      throw new CommandException("ERR wrong number of arguments for '" + name + "' command");
    }
    int n = (r.size() - 1) / 2;
    byte[][] keys = new byte[n][];
    byte[][] values = new byte[n][];
    for (int i = 0; i < n; i++) {
      keys[i] = r.arg(1 + 2 * i);
      values[i] = r.arg(2 + 2 * i);
    }
    return new byte[][][] {keys, values};
  }
}
