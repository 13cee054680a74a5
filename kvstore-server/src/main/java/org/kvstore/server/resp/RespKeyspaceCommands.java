package org.kvstore.server.resp;

import static org.kvstore.server.resp.RespCommandSpec.FAST;
import static org.kvstore.server.resp.RespCommandSpec.READONLY;
import static org.kvstore.server.resp.RespCommandSpec.SLOW;
import static org.kvstore.server.resp.RespCommandSpec.WRITE;
import static org.kvstore.server.resp.RespCommandSpec.command;
import static org.kvstore.server.resp.RespConnectionCommands.str;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.kvstore.server.command.CommandException;
import org.kvstore.server.command.GlobPattern;
import org.kvstore.server.command.Keyspace;
import org.kvstore.server.command.KeyspaceCommands;
import org.kvstore.server.command.RedisNumbers;

/**
 * The RESP keyspace commands (KEYS, SCAN, TYPE, RENAME, RENAMENX, RANDOMKEY): their specs, argument
 * parsing and replies, over the protocol-neutral {@link KeyspaceCommands}.
 *
 * <p>Thread safety: thread-safe.
 */
final class RespKeyspaceCommands {
  private final Keyspace keyspace;
  private final KeyspaceCommands commands;

  RespKeyspaceCommands(Keyspace keyspace, KeyspaceCommands commands) {
    this.keyspace = keyspace;
    this.commands = commands;
  }

  List<RespCommandSpec> specs() {
    return List.of(
        command("keys", 2).flags(READONLY | SLOW).doc("keyspace", "Returns all key names that match a pattern.")
            .handler((s, r) -> keyList(commands.keys(s.table(keyspace), GlobPattern.compile(r.arg(1))))),
        command("scan", -2).flags(READONLY | SLOW).doc("keyspace", "Iterates over the key names in the table.")
            .handler(this::scan),
        command("type", 2).flags(READONLY | FAST).keys(1, 1, 1).doc("keyspace", "Determines the type of value stored at a key.")
            .handler((s, r) -> new RespMessage.SimpleString(commands.type(s.table(keyspace), r.arg(1)))),
        command("rename", 3).flags(WRITE).keys(1, 2, 1).doc("keyspace", "Renames a key and overwrites the destination.")
            .handler((s, r) -> {
              commands.rename(s.table(keyspace), r.arg(1), r.arg(2), false);
              return RespMessage.OK;
            }),
        command("renamenx", 3).flags(WRITE | FAST).keys(1, 2, 1).doc("keyspace", "Renames a key only when the target key name doesn't exist.")
            .handler((s, r) -> RespMessage.integer(commands.rename(s.table(keyspace), r.arg(1), r.arg(2), true) ? 1 : 0)),
        command("randomkey", 1).flags(READONLY | SLOW).doc("keyspace", "Returns a random key name from the table.")
            .handler((s, r) -> RespMessage.bulkOrNull(commands.randomKey(s.table(keyspace)))));
  }

  private RespMessage scan(RespSession s, RespRequest r) {
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
    KeyspaceCommands.ScanPage page = commands.scan(
        s.table(keyspace), cursorId, pattern, count, type == null || type.equals("string"));
    return new RespMessage.ArrayReply(List.of(
        RespMessage.bulk(Long.toUnsignedString(page.nextCursor())), keyList(page.keys())));
  }

  private static RespMessage keyList(List<byte[]> keys) {
    List<RespMessage> out = new ArrayList<>(keys.size());
    for (byte[] k : keys) {
      out.add(new RespMessage.BulkString(k));
    }
    return new RespMessage.ArrayReply(out);
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
}
