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
import org.kvstore.Table;
import org.kvstore.server.command.CommandException;
import org.kvstore.server.command.GlobPattern;
import org.kvstore.server.command.Keyspace;
import org.kvstore.server.command.KeyspaceCommands;
import org.kvstore.server.command.RedisNumbers;
import org.kvstore.server.command.TransactionView;

/**
 * The RESP keyspace commands (KEYS, SCAN, TYPE, RENAME, RENAMENX, RANDOMKEY, COPY, TOUCH, OBJECT):
 * their specs, argument parsing and replies, over the protocol-neutral {@link KeyspaceCommands}.
 *
 * <p>Thread safety: thread-safe.
 */
final class RespKeyspaceCommands {
  /** Redis' OBJECT HELP lines, between the header and the HELP entry that every help ends with. */
  static final List<String> OBJECT_HELP = List.of(
      "ENCODING <key>",
      "    Return the kind of internal representation used in order to store the value",
      "    associated with a <key>.",
      "FREQ <key>",
      "    Return the access frequency index of the <key>. The returned integer is",
      "    proportional to the logarithm of the recent access frequency of the key.",
      "IDLETIME <key>",
      "    Return the idle time of the <key>, that is the approximated number of",
      "    seconds elapsed since the last access to the key.",
      "REFCOUNT <key>",
      "    Return the number of references of the value associated with the specified",
      "    <key>.");
  /** Redis' OBJECT FREQ error when the maxmemory policy is not LFU (ours is always noeviction). */
  static final String FREQ_NOT_TRACKED = "ERR An LFU maxmemory policy is not selected, access frequency"
      + " not tracked. Please note that when switching between policies at runtime LRU and LFU data"
      + " will take some time to adjust.";

  private final Keyspace keyspace;
  private final KeyspaceCommands commands;

  RespKeyspaceCommands(Keyspace keyspace, KeyspaceCommands commands) {
    this.keyspace = keyspace;
    this.commands = commands;
  }

  List<RespCommandSpec> specs() {
    return List.of(
        command("keys", 2).flags(READONLY | SLOW).doc("keyspace", "Returns all key names that match a pattern.")
            .handler(this::keys),
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
            .handler((s, r) -> RespMessage.bulkOrNull(commands.randomKey(s.table(keyspace)))),
        // SLOW: with DB n it writes another table, which may wait for an fsync.
        command("copy", -3).flags(WRITE | SLOW).keys(1, 2, 1).doc("keyspace", "Copies the value of a key to a new key.")
            .handler(this::copy),
        command("touch", -2).flags(READONLY | FAST).keys(1, -1, 1).doc("keyspace", "Returns the number of existing keys out of those specified after updating the time they were last accessed.")
            .handler((s, r) -> RespMessage.integer(commands.touch(s.table(keyspace), r.args().subList(1, r.size())))),
        command("object", -2).flags(READONLY).keys(2, 2, 1).doc("keyspace", "A container for object introspection commands.")
            .subcommands("encoding", "freq", "idletime", "refcount", "help")
            .handler(this::object));
  }

  /** {@code COPY source destination [DB n] [REPLACE]}, options parsed and checked in Redis' order. */
  private RespMessage copy(RespSession s, RespRequest r) {
    Table src = s.table(keyspace);
    Table dst = src;
    boolean replace = false;
    for (int i = 3; i < r.size(); i++) {
      String opt = str(r.arg(i)).toLowerCase(Locale.ROOT);
      if (opt.equals("replace")) {
        replace = true;
      } else if (opt.equals("db") && i + 1 < r.size()) {
        int n = RedisNumbers.parseInt(r.arg(++i));
        if (n < 0 || n >= keyspace.databases()) {
          throw new CommandException("ERR DB index is out of range");
        }
        dst = keyspace.indexTable(n);
      } else {
        throw new CommandException(CommandException.SYNTAX);
      }
    }
    if (KeyspaceCommands.sameTable(src, dst)) {
      dst = src; // inside EXEC: the transaction's view
    } else if (src instanceof TransactionView) {
      // EXEC writes one table as one batch under its keys' locks; another table is not part of it.
      throw new CommandException("ERR COPY to another database is not supported inside MULTI");
    }
    return RespMessage.integer(commands.copy(src, r.arg(1), dst, r.arg(2), replace) ? 1 : 0);
  }

  /** {@code OBJECT ENCODING|FREQ|IDLETIME|REFCOUNT key} and {@code OBJECT HELP}. */
  private RespMessage object(RespSession s, RespRequest r) {
    String sub = str(r.arg(1)).toLowerCase(Locale.ROOT);
    switch (sub) {
      case "help" -> {
        RespConnectionCommands.arity(r, 2, "object|help");
        List<RespMessage> lines = new ArrayList<>(OBJECT_HELP.size() + 3);
        lines.add(new RespMessage.SimpleString(
            "OBJECT <subcommand> [<arg> [value] [opt] ...]. Subcommands are:"));
        for (String line : OBJECT_HELP) {
          lines.add(new RespMessage.SimpleString(line));
        }
        lines.add(new RespMessage.SimpleString("HELP"));
        lines.add(new RespMessage.SimpleString("    Print this help."));
        return new RespMessage.ArrayReply(lines);
      }
      case "encoding" -> {
        RespConnectionCommands.arity(r, 3, "object|encoding");
        String encoding = commands.objectEncoding(s.table(keyspace), r.arg(2));
        return encoding == null ? RespMessage.NULL : RespMessage.bulk(encoding);
      }
      case "refcount" -> {
        RespConnectionCommands.arity(r, 3, "object|refcount");
        long n = commands.objectRefCount(s.table(keyspace), r.arg(2));
        return n < 0 ? RespMessage.NULL : RespMessage.integer(n);
      }
      case "idletime" -> {
        RespConnectionCommands.arity(r, 3, "object|idletime");
        // No access times are kept: every key reads as just used (docs/server.md).
        return commands.exists(s.table(keyspace), r.arg(2)) ? RespMessage.ZERO : RespMessage.NULL;
      }
      case "freq" -> {
        RespConnectionCommands.arity(r, 3, "object|freq");
        if (!commands.exists(s.table(keyspace), r.arg(2))) {
          return RespMessage.NULL;
        }
        throw new CommandException(FREQ_NOT_TRACKED);
      }
      default -> {
        String given = str(r.arg(1));
        throw new CommandException("ERR unknown subcommand '"
            + (given.length() > 128 ? given.substring(0, 128) : given) + "'. Try OBJECT HELP.");
      }
    }
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
    ReplyArrayBuilder keys = new ReplyArrayBuilder(s);
    long next;
    try {
      next = commands.scan(
          s.table(keyspace), cursorId, pattern, count, type == null || type.equals("string"), keys::addBulk);
    } catch (RuntimeException e) {
      keys.discard();
      throw e;
    }
    return new RespMessage.ArrayReply(List.of(RespMessage.bulk(Long.toUnsignedString(next)), keys.build()));
  }

  /** {@code KEYS pattern}: the reply built encoded, as the keys are read (it may be very large). */
  private RespMessage keys(RespSession s, RespRequest r) {
    ReplyArrayBuilder keys = new ReplyArrayBuilder(s);
    try {
      commands.keys(s.table(keyspace), GlobPattern.compile(r.arg(1)), keys::addBulk);
    } catch (RuntimeException e) {
      keys.discard();
      throw e;
    }
    return keys.build();
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
