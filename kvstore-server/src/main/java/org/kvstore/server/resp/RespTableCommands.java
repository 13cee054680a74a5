package org.kvstore.server.resp;

import static org.kvstore.server.resp.RespCommandSpec.ADMIN;
import static org.kvstore.server.resp.RespCommandSpec.NO_MULTI;
import static org.kvstore.server.resp.RespCommandSpec.READONLY;
import static org.kvstore.server.resp.RespCommandSpec.SLOW;
import static org.kvstore.server.resp.RespCommandSpec.WRITE;
import static org.kvstore.server.resp.RespCommandSpec.command;
import static org.kvstore.server.resp.RespConnectionCommands.str;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import org.kvstore.Table;
import org.kvstore.TableInfo;
import org.kvstore.server.command.CommandException;
import org.kvstore.server.command.Keyspace;
import org.kvstore.server.command.RedisNumbers;
import org.kvstore.server.command.TableCommands;

/**
 * Table administration, namespaced like a Redis module so it cannot clash with Redis commands:
 * {@code KV.CREATE db table engine [property value ...]}, {@code KV.DROP db table},
 * {@code KV.DBS}, {@code KV.TABLES db}, {@code KV.USE db table} and
 * {@code KV.RANGE start end [LIMIT n]} (an ordered range of the selected table; an empty bound is
 * an open end; the reply alternates keys and values) and {@code KV.INFO db table} (the table's
 * engine, durability, size and engine statistics, one {@code name:value} line each, as INFO).
 *
 * <p>The RESP side (specs, argument parsing, replies) over the protocol-neutral
 * {@link TableCommands}.
 *
 * <p>Thread safety: thread-safe.
 */
final class RespTableCommands {
  private final Keyspace keyspace;
  private final TableCommands tables;

  RespTableCommands(Keyspace keyspace, TableCommands tables) {
    this.keyspace = keyspace;
    this.tables = tables;
  }

  List<RespCommandSpec> specs() {
    return List.of(
        command("kv.create", -4).flags(WRITE | SLOW | ADMIN | NO_MULTI).doc("kvstore", "Creates a table (and its database when missing).")
            .handler(this::create),
        command("kv.drop", 3).flags(WRITE | SLOW | ADMIN | NO_MULTI).doc("kvstore", "Drops a table and its data.")
            .handler(this::drop),
        command("kv.dbs", 1).flags(READONLY | SLOW).doc("kvstore", "Lists the databases.")
            .handler((s, r) -> names(tables.databases())),
        command("kv.tables", 2).flags(READONLY | SLOW).doc("kvstore", "Lists the tables of a database.")
            .handler((s, r) -> names(tables.tables(str(r.arg(1))))),
        command("kv.use", 3).flags(SLOW | NO_MULTI).doc("kvstore", "Makes this connection use a table of a database.")
            .handler(this::use),
        command("kv.range", -3).flags(READONLY | SLOW).doc("kvstore", "Returns the keys and values of an ordered key range.")
            .handler(this::range),
        command("kv.info", 3).flags(READONLY | SLOW).doc("kvstore", "Returns a table's engine, size and engine statistics.")
            .handler(this::info));
  }

  private RespMessage create(RespSession s, RespRequest r) {
    if (r.size() % 2 != 0) {
      throw new CommandException("ERR wrong number of arguments for 'kv.create' command");
    }
    Properties props = new Properties();
    for (int i = 4; i < r.size(); i += 2) {
      props.setProperty(str(r.arg(i)), str(r.arg(i + 1)));
    }
    tables.create(str(r.arg(1)), str(r.arg(2)), str(r.arg(3)), props);
    return RespMessage.OK;
  }

  private RespMessage drop(RespSession s, RespRequest r) {
    String db = str(r.arg(1));
    String table = str(r.arg(2));
    tables.drop(db, table);
    if (db.equals(s.database()) && table.equals(s.tableName())) {
      s.invalidateTable();
    }
    return RespMessage.OK;
  }

  private RespMessage use(RespSession s, RespRequest r) {
    String db = str(r.arg(1));
    String name = str(r.arg(2));
    Table t = tables.existing(db, name);
    s.use(db, name, t, keyspace.syncWrites(t));
    return RespMessage.OK;
  }

  private RespMessage info(RespSession s, RespRequest r) {
    TableInfo info = tables.info(str(r.arg(1)), str(r.arg(2)));
    StringBuilder sb = new StringBuilder();
    sb.append("engine:").append(info.engine()).append("\r\n");
    sb.append("durability:").append(info.durability() == null ? "none" : info.durability().toString()
        .toLowerCase(Locale.ROOT)).append("\r\n");
    sb.append("entries_estimate:").append(info.entryEstimate()).append("\r\n");
    sb.append("bytes_on_disk:").append(info.bytesOnDisk()).append("\r\n");
    for (Map.Entry<String, Long> e : new TreeMap<>(info.engineStats()).entrySet()) {
      sb.append(e.getKey()).append(':').append(e.getValue()).append("\r\n");
    }
    return new RespMessage.BulkString(sb.toString().getBytes(StandardCharsets.UTF_8));
  }

  private RespMessage range(RespSession s, RespRequest r) {
    byte[] start = r.arg(1);
    byte[] end = r.arg(2);
    int limit = 0;
    if (r.size() == 5 && str(r.arg(3)).toLowerCase(Locale.ROOT).equals("limit")) {
      long n = RedisNumbers.parseLong(r.arg(4));
      if (n < 0 || n > Integer.MAX_VALUE) {
        throw new CommandException(CommandException.NOT_INTEGER);
      }
      limit = (int) n;
      if (limit == 0) {
        return RespMessage.EMPTY_ARRAY;
      }
    } else if (r.size() != 3) {
      throw new CommandException(CommandException.SYNTAX);
    }
    ReplyArrayBuilder out = new ReplyArrayBuilder(s);
    try {
      tables.range(s.table(keyspace), start.length == 0 ? null : start, end.length == 0 ? null : end, limit,
          (k, v) -> {
            out.addBulk(k);
            out.addBulk(v);
          });
    } catch (RuntimeException e) {
      out.discard();
      throw e;
    }
    return out.build();
  }

  private static RespMessage names(List<String> names) {
    return new RespMessage.ArrayReply(names.stream().map(RespMessage::bulk).toList());
  }
}
