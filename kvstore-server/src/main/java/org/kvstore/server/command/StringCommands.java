package org.kvstore.server.command;

import static org.kvstore.server.command.CommandSpec.FAST;
import static org.kvstore.server.command.CommandSpec.READONLY;
import static org.kvstore.server.command.CommandSpec.WRITE;
import static org.kvstore.server.command.CommandSpec.command;
import static org.kvstore.server.command.ConnectionCommands.str;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.function.Function;
import org.kvstore.Table;
import org.kvstore.WriteBatch;
import org.kvstore.server.resp.RespMessage;
import org.kvstore.server.resp.RespRequest;

/**
 * String commands over the selected table. Every read-modify-write command (SET NX/XX/GET, GETSET,
 * GETDEL, SETNX, MSETNX, INCR family and INCRBYFLOAT, APPEND, SETRANGE) runs inside {@link Table#update}, which
 * holds the keys' locks across the read and the write, so it is atomic; MSET is one
 * {@link WriteBatch}.
 *
 * <p>Keys never expire: the expiry options of SET are parsed and validated like Redis does, then
 * refused with an error rather than silently ignored.
 *
 * <p>Thread safety: thread-safe.
 */
final class StringCommands {
  private final Keyspace keyspace;
  private final ServerSettings settings;

  StringCommands(Keyspace keyspace, ServerSettings settings) {
    this.keyspace = keyspace;
    this.settings = settings;
  }

  List<CommandSpec> specs() {
    return List.of(
        command("get", 2).flags(READONLY | FAST).keys(1, 1, 1).doc("string", "Returns the string value of a key.")
            .handler((s, r) -> RespMessage.bulkOrNull(t(s).getReadOnly(r.arg(1)))),
        command("set", -3).flags(WRITE).keys(1, 1, 1).doc("string", "Sets the string value of a key.")
            .handler(this::set),
        command("setnx", 3).flags(WRITE | FAST).keys(1, 1, 1).doc("string", "Sets the value of a key only when it does not exist.")
            .handler((s, r) -> {
              boolean[] done = new boolean[1];
              update(s, List.of(r.arg(1)), cur -> {
                if (cur[0] != null) {
                  return null;
                }
                done[0] = true;
                return new WriteBatch().put(r.arg(1), r.arg(2));
              });
              return RespMessage.integer(done[0] ? 1 : 0);
            }),
        command("getset", 3).flags(WRITE | FAST).keys(1, 1, 1).doc("string", "Returns the old value and sets a new one.")
            .handler((s, r) -> {
              byte[][] old = new byte[1][];
              update(s, List.of(r.arg(1)), cur -> {
                old[0] = cur[0];
                return new WriteBatch().put(r.arg(1), r.arg(2));
              });
              return RespMessage.bulkOrNull(old[0]);
            }),
        command("getdel", 2).flags(WRITE | FAST).keys(1, 1, 1).doc("string", "Returns the value of a key and deletes it.")
            .handler((s, r) -> {
              byte[][] old = new byte[1][];
              update(s, List.of(r.arg(1)), cur -> {
                old[0] = cur[0];
                return cur[0] == null ? null : new WriteBatch().remove(r.arg(1));
              });
              return RespMessage.bulkOrNull(old[0]);
            }),
        command("del", -2).flags(WRITE).keys(1, -1, 1).doc("keyspace", "Deletes one or more keys.")
            .handler(this::del),
        command("unlink", -2).flags(WRITE | FAST).keys(1, -1, 1).doc("keyspace", "Deletes one or more keys.")
            .handler(this::del),
        command("exists", -2).flags(READONLY | FAST).keys(1, -1, 1).doc("keyspace", "Counts how many of the keys exist.")
            .handler((s, r) -> {
              Table t = t(s);
              long n = 0;
              for (int i = 1; i < r.size(); i++) {
                if (t.getReadOnly(r.arg(i)) != null) {
                  n++;
                }
              }
              return RespMessage.integer(n);
            }),
        command("mget", -2).flags(READONLY | FAST).keys(1, -1, 1).doc("string", "Returns the values of one or more keys.")
            .handler((s, r) -> {
              byte[][] keys = new byte[r.size() - 1][];
              for (int i = 0; i < keys.length; i++) {
                keys[i] = r.arg(i + 1);
              }
              byte[][] values = new byte[keys.length][];
              t(s).multiGetReadOnly(keys, values);
              List<RespMessage> out = new ArrayList<>(values.length);
              for (byte[] v : values) {
                out.add(RespMessage.bulkOrNull(v));
              }
              return new RespMessage.ArrayReply(out);
            }),
        command("mset", -3).flags(WRITE).keys(1, -1, 2).doc("string", "Sets the values of one or more keys, atomically.")
            .handler((s, r) -> {
              checkPairs(r, "mset");
              WriteBatch b = new WriteBatch();
              for (int i = 1; i < r.size(); i += 2) {
                b.put(r.arg(i), r.arg(i + 1));
              }
              t(s).write(b);
              return RespMessage.OK;
            }),
        command("msetnx", -3).flags(WRITE).keys(1, -1, 2).doc("string", "Sets keys only when none of them exists, atomically.")
            .handler(this::msetnx),
        command("incr", 2).flags(WRITE | FAST).keys(1, 1, 1).doc("string", "Increments the integer value of a key by one.")
            .handler((s, r) -> incrBy(s, r.arg(1), 1)),
        command("decr", 2).flags(WRITE | FAST).keys(1, 1, 1).doc("string", "Decrements the integer value of a key by one.")
            .handler((s, r) -> incrBy(s, r.arg(1), -1)),
        command("incrby", 3).flags(WRITE | FAST).keys(1, 1, 1).doc("string", "Increments the integer value of a key by a number.")
            .handler((s, r) -> incrBy(s, r.arg(1), RedisNumbers.parseLong(r.arg(2)))),
        command("decrby", 3).flags(WRITE | FAST).keys(1, 1, 1).doc("string", "Decrements the integer value of a key by a number.")
            .handler((s, r) -> {
              long by = RedisNumbers.parseLong(r.arg(2));
              if (by == Long.MIN_VALUE) {
                throw new CommandException("ERR decrement would overflow");
              }
              return incrBy(s, r.arg(1), -by);
            }),
        command("incrbyfloat", 3).flags(WRITE | FAST).keys(1, 1, 1).doc("string", "Increments the floating point value of a key by a number.")
            .handler(this::incrByFloat),
        command("append", 3).flags(WRITE | FAST).keys(1, 1, 1).doc("string", "Appends a string to the value of a key.")
            .handler(this::append),
        command("strlen", 2).flags(READONLY | FAST).keys(1, 1, 1).doc("string", "Returns the length of a string value.")
            .handler((s, r) -> {
              byte[] v = t(s).getReadOnly(r.arg(1));
              return RespMessage.integer(v == null ? 0 : v.length);
            }),
        command("getrange", 4).flags(READONLY).keys(1, 1, 1).doc("string", "Returns a substring of the string value.")
            .handler(this::getrange),
        command("setrange", 4).flags(WRITE).keys(1, 1, 1).doc("string", "Overwrites part of a string value from an offset.")
            .handler(this::setrange));
  }

  private Table t(ClientSession s) {
    return s.table(keyspace);
  }

  private void update(ClientSession s, List<byte[]> keys, Function<byte[][], WriteBatch> fn) {
    t(s).update(keys, fn);
  }

  // ---- SET ----

  private RespMessage set(ClientSession s, RespRequest r) {
    boolean nx = false;
    boolean xx = false;
    boolean get = false;
    boolean expiry = false;
    boolean keepTtl = false;
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
          if (expiry) {
            throw new CommandException(CommandException.SYNTAX);
          }
          keepTtl = true;
        }
        case "EX", "PX", "EXAT", "PXAT" -> {
          if (expiry || keepTtl || !hasNext) {
            throw new CommandException(CommandException.SYNTAX);
          }
          long t = RedisNumbers.parseLong(r.arg(++i));
          if (t <= 0 || (opt.startsWith("E") && t > Long.MAX_VALUE / 1000)) {
            throw new CommandException("ERR invalid expire time in 'set' command");
          }
          expiry = true;
        }
        default -> throw new CommandException(CommandException.SYNTAX);
      }
    }
    if (expiry) {
      throw new CommandException("ERR expiry (EX, PX, EXAT, PXAT) is not supported: keys never expire");
    }
    byte[] key = r.arg(1);
    byte[] value = r.arg(2);
    if (!nx && !xx && !get) {
      t(s).put(key, value);
      return RespMessage.OK;
    }
    boolean onlyIfAbsent = nx;
    boolean onlyIfPresent = xx;
    byte[][] old = new byte[1][];
    boolean[] done = new boolean[1];
    update(s, List.of(key), cur -> {
      old[0] = cur[0];
      if ((onlyIfAbsent && cur[0] != null) || (onlyIfPresent && cur[0] == null)) {
        return null;
      }
      done[0] = true;
      return new WriteBatch().put(key, value);
    });
    if (get) {
      return RespMessage.bulkOrNull(old[0]);
    }
    return done[0] ? RespMessage.OK : RespMessage.NULL;
  }

  // ---- multi-key ----

  private RespMessage del(ClientSession s, RespRequest r) {
    Table t = t(s);
    long n = 0;
    for (byte[] key : distinct(r, 1, 1)) {
      if (t.remove(key)) {
        n++;
      }
    }
    return RespMessage.integer(n);
  }

  private RespMessage msetnx(ClientSession s, RespRequest r) {
    checkPairs(r, "msetnx");
    List<byte[]> keys = new ArrayList<>();
    for (int i = 1; i < r.size(); i += 2) {
      keys.add(r.arg(i));
    }
    boolean[] done = new boolean[1];
    update(s, keys, cur -> {
      for (byte[] v : cur) {
        if (v != null) {
          return null;
        }
      }
      WriteBatch b = new WriteBatch();
      for (int i = 1; i < r.size(); i += 2) {
        b.put(r.arg(i), r.arg(i + 1));
      }
      done[0] = true;
      return b;
    });
    return RespMessage.integer(done[0] ? 1 : 0);
  }

  private static void checkPairs(RespRequest r, String name) {
    if (r.size() % 2 != 1) {
      throw new CommandException("ERR wrong number of arguments for '" + name + "' command");
    }
  }

  /** The arguments from {@code from} on with step {@code step}, duplicates removed, in order. */
  private static List<byte[]> distinct(RespRequest r, int from, int step) {
    Set<java.nio.ByteBuffer> seen = new LinkedHashSet<>();
    List<byte[]> out = new ArrayList<>();
    for (int i = from; i < r.size(); i += step) {
      if (seen.add(java.nio.ByteBuffer.wrap(r.arg(i)))) {
        out.add(r.arg(i));
      }
    }
    return out;
  }

  // ---- counters and edits ----

  private RespMessage incrBy(ClientSession s, byte[] key, long by) {
    long[] result = new long[1];
    update(s, List.of(key), cur -> {
      long v = 0;
      if (cur[0] != null) {
        if (!RedisNumbers.isLong(cur[0])) {
          throw new CommandException(CommandException.NOT_INTEGER);
        }
        v = RedisNumbers.parseLong(cur[0]);
      }
      if ((by > 0 && v > Long.MAX_VALUE - by) || (by < 0 && v < Long.MIN_VALUE - by)) {
        throw new CommandException("ERR increment or decrement would overflow");
      }
      result[0] = v + by;
      return new WriteBatch().put(key, RedisNumbers.toBytes(result[0]));
    });
    return RespMessage.integer(result[0]);
  }

  private RespMessage incrByFloat(ClientSession s, RespRequest r) {
    byte[] key = r.arg(1);
    BigDecimal by = RedisNumbers.parseFloat(r.arg(2));
    byte[][] result = new byte[1][];
    update(s, List.of(key), cur -> {
      BigDecimal v = cur[0] == null ? BigDecimal.ZERO : RedisNumbers.parseFloat(cur[0]);
      result[0] = RedisNumbers.addFloat(v, by);
      return new WriteBatch().put(key, result[0]);
    });
    return new RespMessage.BulkString(result[0]);
  }

  private RespMessage append(ClientSession s, RespRequest r) {
    byte[] key = r.arg(1);
    byte[] tail = r.arg(2);
    long[] length = new long[1];
    update(s, List.of(key), cur -> {
      byte[] head = cur[0] == null ? new byte[0] : cur[0];
      long total = (long) head.length + tail.length;
      checkSize(total);
      byte[] v = Arrays.copyOf(head, (int) total);
      System.arraycopy(tail, 0, v, head.length, tail.length);
      length[0] = total;
      return new WriteBatch().put(key, v);
    });
    return RespMessage.integer(length[0]);
  }

  private void checkSize(long total) {
    if (total > settings.maxBulkBytes()) {
      throw new CommandException("ERR string exceeds maximum allowed size (proto-max-bulk-len)");
    }
  }

  private RespMessage getrange(ClientSession s, RespRequest r) {
    long start = RedisNumbers.parseLong(r.arg(2));
    long end = RedisNumbers.parseLong(r.arg(3));
    byte[] v = t(s).getReadOnly(r.arg(1));
    if (v == null || v.length == 0) {
      return RespMessage.EMPTY_BULK;
    }
    long n = v.length;
    if (start < 0 && end < 0 && start > end) {
      return RespMessage.EMPTY_BULK;
    }
    if (start < 0) {
      start = Math.max(0, n + start);
    }
    if (end < 0) {
      end = Math.max(0, n + end);
    }
    if (end >= n) {
      end = n - 1;
    }
    if (start > end || start >= n) {
      return RespMessage.EMPTY_BULK;
    }
    return new RespMessage.BulkString(Arrays.copyOfRange(v, (int) start, (int) end + 1));
  }

  private RespMessage setrange(ClientSession s, RespRequest r) {
    byte[] key = r.arg(1);
    long offset = RedisNumbers.parseLong(r.arg(2));
    byte[] patch = r.arg(3);
    if (offset < 0) {
      throw new CommandException("ERR offset is out of range");
    }
    long[] length = new long[1];
    update(s, List.of(key), cur -> {
      byte[] v = cur[0];
      if (patch.length == 0) {
        length[0] = v == null ? 0 : v.length;
        return null;
      }
      long total = Math.max(v == null ? 0 : v.length, offset + patch.length);
      checkSize(total);
      byte[] out = v == null ? new byte[(int) total] : Arrays.copyOf(v, (int) total);
      System.arraycopy(patch, 0, out, (int) offset, patch.length);
      length[0] = total;
      return new WriteBatch().put(key, out);
    });
    return RespMessage.integer(length[0]);
  }
}
