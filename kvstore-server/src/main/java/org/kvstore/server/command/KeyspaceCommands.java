package org.kvstore.server.command;

import static org.kvstore.server.command.CommandSpec.FAST;
import static org.kvstore.server.command.CommandSpec.READONLY;
import static org.kvstore.server.command.CommandSpec.SLOW;
import static org.kvstore.server.command.CommandSpec.WRITE;
import static org.kvstore.server.command.CommandSpec.command;
import static org.kvstore.server.command.ConnectionCommands.str;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ThreadLocalRandom;
import org.kvstore.Cursor;
import org.kvstore.Table;
import org.kvstore.WriteBatch;
import org.kvstore.server.resp.RespMessage;
import org.kvstore.server.resp.RespRequest;

/**
 * Keyspace commands over the selected table: KEYS, SCAN, TYPE, RENAME, RANDOMKEY. Tables are
 * ordered, so KEYS and SCAN with a pattern that starts with literal bytes only read that key range;
 * SCAN returns keys in order and its cursor names the next key to read ({@link ScanCursors}).
 *
 * <p>Thread safety: thread-safe.
 */
final class KeyspaceCommands {
  private final Keyspace keyspace;
  private final ScanCursors cursors;

  KeyspaceCommands(Keyspace keyspace, ScanCursors cursors) {
    this.keyspace = keyspace;
    this.cursors = cursors;
  }

  List<CommandSpec> specs() {
    return List.of(
        command("keys", 2).flags(READONLY | SLOW).doc("keyspace", "Returns all key names that match a pattern.")
            .handler(this::keys),
        command("scan", -2).flags(READONLY | SLOW).doc("keyspace", "Iterates over the key names in the table.")
            .handler(this::scan),
        command("type", 2).flags(READONLY | FAST).keys(1, 1, 1).doc("keyspace", "Determines the type of value stored at a key.")
            .handler((s, r) -> new RespMessage.SimpleString(
                s.table(keyspace).getReadOnly(r.arg(1)) == null ? "none" : "string")),
        command("rename", 3).flags(WRITE).keys(1, 2, 1).doc("keyspace", "Renames a key and overwrites the destination.")
            .handler((s, r) -> {
              rename(s, r, false);
              return RespMessage.OK;
            }),
        command("renamenx", 3).flags(WRITE | FAST).keys(1, 2, 1).doc("keyspace", "Renames a key only when the target key name doesn't exist.")
            .handler((s, r) -> RespMessage.integer(rename(s, r, true) ? 1 : 0)),
        command("randomkey", 1).flags(READONLY | SLOW).doc("keyspace", "Returns a random key name from the table.")
            .handler(this::randomkey));
  }

  private RespMessage keys(ClientSession s, RespRequest r) {
    GlobPattern p = GlobPattern.compile(r.arg(1));
    byte[] prefix = p.literalPrefix();
    byte[] from = prefix.length == 0 ? null : prefix;
    byte[] to = prefix.length == 0 ? null : GlobPattern.prefixEnd(prefix);
    List<RespMessage> out = new ArrayList<>();
    try (Cursor c = s.table(keyspace).scan(from, to, 0)) {
      while (c.next()) {
        byte[] k = c.key();
        if (p.matches(k)) {
          out.add(new RespMessage.BulkString(k));
        }
      }
    }
    return new RespMessage.ArrayReply(out);
  }

  private RespMessage scan(ClientSession s, RespRequest r) {
    long cursorId = parseCursor(r.arg(1));
    GlobPattern pattern = null;
    long count = 10;
    String type = null;
    for (int i = 2; i < r.size(); i += 2) {
      String opt = str(r.arg(i)).toLowerCase(Locale.ROOT);
      if (i + 1 >= r.size()) {
        throw new CommandException(CommandException.SYNTAX);
      }
      switch (opt) {
        case "match" -> pattern = GlobPattern.compile(r.arg(i + 1));
        case "count" -> {
          count = RedisNumbers.parseLong(r.arg(i + 1));
          if (count < 1) {
            throw new CommandException(CommandException.SYNTAX);
          }
        }
        case "type" -> type = str(r.arg(i + 1)).toLowerCase(Locale.ROOT);
        default -> throw new CommandException(CommandException.SYNTAX);
      }
    }
    Table table = s.table(keyspace);
    // Inside EXEC the table is the transaction's view; a cursor names the table itself, so an
    // iteration may go on outside the transaction.
    Table cursorTable = table instanceof TransactionTable view ? view.base() : table;
    byte[] from = null;
    if (cursorId != 0) {
      ScanCursors.Position pos = cursors.get(cursorId);
      if (pos == null || pos.table() != cursorTable) {
        throw new CommandException("ERR invalid cursor");
      }
      from = pos.resumeKey();
    }
    byte[] to = null;
    if (pattern != null && pattern.literalPrefix().length > 0) {
      byte[] prefix = pattern.literalPrefix();
      if (from == null || Arrays.compareUnsigned(from, prefix) < 0) {
        from = prefix;
      }
      to = GlobPattern.prefixEnd(prefix);
    }
    int limit = (int) Math.min(count, 100_000);
    List<RespMessage> keys = new ArrayList<>();
    byte[] next = null;
    int seen = 0;
    try (Cursor c = table.scan(from, to, limit + 1)) {
      while (c.next()) {
        byte[] k = c.key();
        if (seen++ == limit) {
          next = k;
          break;
        }
        boolean typeOk = type == null || type.equals("string");
        if (typeOk && (pattern == null || pattern.matches(k))) {
          keys.add(new RespMessage.BulkString(k));
        }
      }
    }
    long nextId = next == null ? 0 : cursors.register(cursorTable, next);
    return new RespMessage.ArrayReply(List.of(
        RespMessage.bulk(Long.toUnsignedString(nextId)), new RespMessage.ArrayReply(keys)));
  }

  private static long parseCursor(byte[] b) {
    String text = new String(b, StandardCharsets.ISO_8859_1);
    try {
      if (text.isEmpty() || text.charAt(0) == '-' || text.charAt(0) == '+') {
        throw new NumberFormatException(text);
      }
      return Long.parseUnsignedLong(text);
    } catch (NumberFormatException e) {
      throw new CommandException("ERR invalid cursor");
    }
  }

  /**
   * RENAME (and with {@code onlyIfAbsent}, RENAMENX): moves the value of the first argument to the
   * second in one atomic update; returns whether it moved (RENAMENX leaves an existing target).
   */
  private boolean rename(ClientSession s, RespRequest r, boolean onlyIfAbsent) {
    byte[] src = r.arg(1);
    byte[] dst = r.arg(2);
    boolean[] missing = new boolean[1];
    boolean[] moved = new boolean[1];
    s.table(keyspace).update(List.of(src, dst), cur -> {
      if (cur[0] == null) {
        missing[0] = true;
        return null;
      }
      if (onlyIfAbsent && cur[1] != null) {
        return null;
      }
      moved[0] = true;
      if (Arrays.equals(src, dst)) {
        return null;
      }
      return new WriteBatch().remove(src).put(dst, cur[0]);
    });
    if (missing[0]) {
      throw new CommandException("ERR no such key");
    }
    return moved[0];
  }

  private RespMessage randomkey(ClientSession s, RespRequest r) {
    Table t = s.table(keyspace);
    byte[] probe = new byte[8];
    ThreadLocalRandom.current().nextBytes(probe);
    try (Cursor c = t.scan(probe, null, 1)) {
      if (c.next()) {
        return new RespMessage.BulkString(c.key());
      }
    }
    try (Cursor c = t.scan(null, null, 1)) {
      return c.next() ? new RespMessage.BulkString(c.key()) : RespMessage.NULL;
    }
  }
}
