package org.kvstore.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.kvstore.testkit.Seeds;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Transaction;
import redis.clients.jedis.commands.ProtocolCommand;
import redis.clients.jedis.exceptions.JedisDataException;

/**
 * Random commands, alone and in MULTI/EXEC transactions, against a {@code TreeMap} model of Redis'
 * semantics: every reply (inside EXEC's array too) and the table's final contents must match the
 * model. Keys come from a small set so that commands of one transaction keep meeting each other's
 * keys, and values include text so that INCR fails at run time. The seed is in every failure
 * message; {@code -Dkvstore.seed=N} replays one.
 */
class TransactionModelTest {
  private static final int STEPS = "default".equals(TestServers.scale()) ? 400 : 4000;

  @TempDir static Path dir;
  static KVStoreServer server;

  @BeforeAll
  static void start() {
    server = TestServers.start(dir);
  }

  @AfterAll
  static void stop() {
    server.close();
  }

  /** One command: its arguments, and what it does to the model and replies there. */
  private record Op(List<String> args) {
    String name() {
      return args.get(0);
    }
  }

  @Test
  void randomTransactionsAndCommands_matchTheModel() {
    long seed = Seeds.seed("TransactionModelTest");
    Random rnd = new Random(seed);
    TreeMap<String, String> model = new TreeMap<>();
    try (Jedis j = new Jedis("127.0.0.1", server.respPort())) {
      j.select(11);
      j.flushDB();
      for (int step = 0; step < STEPS; step++) {
        if (rnd.nextInt(3) == 0) {
          Op op = randomOp(rnd);
          Object expected = apply(model, op);
          Object actual;
          try {
            actual = normalize(j.sendCommand(command(op), op.args().subList(1, op.args().size()).toArray(String[]::new)));
          } catch (JedisDataException e) {
            actual = "-" + e.getMessage();
          }
          assertThat(actual).as("seed %d, step %d: %s", seed, step, op.args()).isEqualTo(expected);
          continue;
        }
        int n = 1 + rnd.nextInt(8);
        List<Op> ops = new ArrayList<>();
        List<Object> expected = new ArrayList<>();
        Transaction t = j.multi();
        for (int i = 0; i < n; i++) {
          Op op = randomOp(rnd);
          ops.add(op);
          expected.add(apply(model, op));
          t.sendCommand(command(op), op.args().subList(1, op.args().size()).toArray(String[]::new));
        }
        List<Object> replies = t.exec();
        List<Object> actual = new ArrayList<>();
        for (Object r : replies) {
          actual.add(r instanceof JedisDataException e ? "-" + e.getMessage() : normalize(r));
        }
        assertThat(actual).as("seed %d, step %d: EXEC of %s", seed, step, ops).isEqualTo(expected);
      }
      TreeMap<String, String> stored = new TreeMap<>();
      for (String k : j.keys("*")) {
        stored.put(k, j.get(k));
      }
      assertThat(stored).as("seed %d: the table at the end", seed).isEqualTo(model);
      j.select(0);
    }
  }

  private static ProtocolCommand command(Op op) {
    return () -> op.name().getBytes(StandardCharsets.UTF_8);
  }

  private static String key(Random rnd) {
    return "m:" + rnd.nextInt(8);
  }

  private static String value(Random rnd) {
    return rnd.nextInt(4) == 0 ? "x" + rnd.nextInt(3) : Integer.toString(rnd.nextInt(100) - 20);
  }

  private static Op randomOp(Random rnd) {
    List<String> a = new ArrayList<>();
    switch (rnd.nextInt(13)) {
      case 0, 1 -> a.addAll(List.of("SET", key(rnd), value(rnd)));
      case 2 -> a.addAll(List.of("GET", key(rnd)));
      case 3 -> a.addAll(List.of("DEL", key(rnd), key(rnd)));
      case 4 -> a.addAll(List.of("INCR", key(rnd)));
      case 5 -> a.addAll(List.of("APPEND", key(rnd), value(rnd)));
      case 6 -> a.addAll(List.of("EXISTS", key(rnd), key(rnd)));
      case 7 -> a.addAll(List.of("GETDEL", key(rnd)));
      case 8 -> a.addAll(List.of("RENAME", key(rnd), key(rnd)));
      case 9 -> a.addAll(List.of("MSET", key(rnd), value(rnd), key(rnd), value(rnd)));
      case 10 -> a.addAll(List.of("KEYS", "m:*"));
      case 11 -> a.add("DBSIZE");
      default -> a.addAll(List.of("SCAN", "0", "COUNT", "1000"));
    }
    return new Op(a);
  }

  /** Applies {@code op} to the model and returns its reply in {@link #normalize}'s form. */
  private static Object apply(TreeMap<String, String> m, Op op) {
    List<String> a = op.args();
    switch (a.get(0)) {
      case "SET" -> {
        m.put(a.get(1), a.get(2));
        return "OK";
      }
      case "GET" -> {
        return m.get(a.get(1));
      }
      case "DEL" -> {
        long n = 0;
        for (String k : new LinkedHashSet<>(a.subList(1, a.size()))) {
          n += m.remove(k) != null ? 1 : 0;
        }
        return n;
      }
      case "INCR" -> {
        String v = m.getOrDefault(a.get(1), "0");
        long n;
        try {
          n = Long.parseLong(v);
        } catch (NumberFormatException e) {
          return "-ERR value is not an integer or out of range";
        }
        if (!Long.toString(n).equals(v)) {
          // Redis takes only the canonical form: no leading zeros ("026", as APPEND makes), '+' or "-0".
          return "-ERR value is not an integer or out of range";
        }
        n++;
        m.put(a.get(1), Long.toString(n));
        return n;
      }
      case "APPEND" -> {
        String v = m.getOrDefault(a.get(1), "") + a.get(2);
        m.put(a.get(1), v);
        return (long) v.length();
      }
      case "EXISTS" -> {
        long n = 0;
        for (String k : a.subList(1, a.size())) {
          n += m.containsKey(k) ? 1 : 0;
        }
        return n;
      }
      case "GETDEL" -> {
        return m.remove(a.get(1));
      }
      case "RENAME" -> {
        String v = m.get(a.get(1));
        if (v == null) {
          return "-ERR no such key";
        }
        m.remove(a.get(1));
        m.put(a.get(2), v);
        return "OK";
      }
      case "MSET" -> {
        for (int i = 1; i < a.size(); i += 2) {
          m.put(a.get(i), a.get(i + 1));
        }
        return "OK";
      }
      case "KEYS" -> {
        return new TreeSet<>(m.keySet());
      }
      case "DBSIZE" -> {
        return (long) m.size();
      }
      case "SCAN" -> {
        return List.of("0", new TreeSet<>(m.keySet()));
      }
      default -> throw new AssertionError(a);
    }
  }

  /** Byte arrays as strings, arrays as lists; KEYS' and SCAN's key lists as sorted sets. */
  private static Object normalize(Object reply) {
    if (reply instanceof byte[] b) {
      return new String(b, StandardCharsets.UTF_8);
    }
    if (reply instanceof List<?> list) {
      if (list.size() == 2 && list.get(1) instanceof List<?> keys) {
        return List.of(normalize(list.get(0)), sortedStrings(keys)); // SCAN: cursor, keys
      }
      return sortedStrings(list); // KEYS
    }
    return reply; // Long, or null
  }

  private static Set<String> sortedStrings(List<?> items) {
    Set<String> out = new TreeSet<>();
    for (Object o : items) {
      out.add((String) normalize(o));
    }
    return out;
  }
}
