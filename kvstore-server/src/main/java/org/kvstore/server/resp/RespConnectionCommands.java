package org.kvstore.server.resp;

import static org.kvstore.server.resp.RespCommandSpec.CONNECTION;
import static org.kvstore.server.resp.RespCommandSpec.FAST;
import static org.kvstore.server.resp.RespCommandSpec.NOAUTH;
import static org.kvstore.server.resp.RespCommandSpec.NOT_QUEUED;
import static org.kvstore.server.resp.RespCommandSpec.NO_MULTI;
import static org.kvstore.server.resp.RespCommandSpec.SLOW;
import static org.kvstore.server.resp.RespCommandSpec.command;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;
import org.kvstore.Table;
import org.kvstore.server.command.CommandException;
import org.kvstore.server.command.Keyspace;
import org.kvstore.server.command.RedisNumbers;
import org.kvstore.server.command.ServerSettings;

/**
 * Connection commands: PING, ECHO, HELLO, AUTH, SELECT, QUIT, RESET and CLIENT, with the replies
 * and error texts the clients of docs/server.md depend on (Redis 7's).
 *
 * <p>Thread safety: thread-safe (stateless apart from shared thread-safe collaborators).
 */
final class RespConnectionCommands {
  /** The Redis version advertised to clients (at least 7.2, which Lettuce 6.3 requires). */
  static final String REDIS_VERSION = "7.2.4";
  static final String NOAUTH_HELLO =
      "NOAUTH HELLO must be called with the client already authenticated, otherwise the HELLO <proto>"
          + " AUTH <user> <pass> option can be used to authenticate the client and select the RESP"
          + " protocol version at the same time";
  static final String WRONGPASS = "WRONGPASS invalid username-password pair or user is disabled.";

  private final Keyspace keyspace;
  private final ServerSettings settings;
  private final ClientRegistry clients;

  RespConnectionCommands(Keyspace keyspace, ServerSettings settings, ClientRegistry clients) {
    this.keyspace = keyspace;
    this.settings = settings;
    this.clients = clients;
  }

  List<RespCommandSpec> specs() {
    return List.of(
        command("ping", -1).flags(CONNECTION | FAST).doc("connection", "Returns the server's liveliness response.")
            .handler(this::ping),
        command("echo", 2).flags(CONNECTION | FAST).doc("connection", "Returns the given string.")
            .handler((s, r) -> new RespMessage.BulkString(r.arg(1))),
        command("hello", -1).flags(CONNECTION | NOAUTH | FAST | NO_MULTI).doc("connection", "Handshakes with the server.")
            .handler(this::hello),
        command("auth", -2).flags(CONNECTION | NOAUTH | FAST | NO_MULTI).doc("connection", "Authenticates the connection.")
            .handler(this::auth),
        command("select", 2).flags(SLOW | NO_MULTI).doc("connection", "Changes the selected database (table n of database 'default').")
            .handler(this::select),
        command("quit", -1).flags(CONNECTION | NOAUTH | FAST | NOT_QUEUED).doc("connection", "Closes the connection.")
            .handler((s, r) -> {
              s.requestClose();
              return RespMessage.OK;
            }),
        command("reset", 1).flags(CONNECTION | NOAUTH | FAST | NOT_QUEUED).doc("connection", "Resets the connection.")
            .handler(this::reset),
        command("client", -2).flags(CONNECTION).doc("connection", "A container for client connection commands.")
            .subcommands("setname", "getname", "setinfo", "id", "info", "list", "help")
            .handler(this::client));
  }

  private RespMessage ping(RespSession s, RespRequest r) {
    if (r.size() > 2) {
      return new RespMessage.ErrorReply("ERR wrong number of arguments for 'ping' command");
    }
    return r.size() == 2 ? new RespMessage.BulkString(r.arg(1)) : RespMessage.PONG;
  }

  private RespMessage hello(RespSession s, RespRequest r) {
    int proto = s.protocolVersion();
    int i = 1;
    if (r.size() >= 2) {
      long v;
      try {
        v = RedisNumbers.parseLong(r.arg(1));
      } catch (CommandException e) {
        throw new CommandException("ERR Protocol version is not an integer or out of range");
      }
      if (v < 2 || v > 3) {
        throw new CommandException("NOPROTO unsupported protocol version");
      }
      proto = (int) v;
      i = 2;
    }
    byte[] user = null;
    byte[] pass = null;
    String setName = null;
    for (; i < r.size(); i++) {
      String opt = str(r.arg(i)).toLowerCase(Locale.ROOT);
      if (opt.equals("auth") && i + 2 < r.size()) {
        user = r.arg(i + 1);
        pass = r.arg(i + 2);
        i += 2;
      } else if (opt.equals("setname") && i + 1 < r.size()) {
        setName = str(r.arg(i + 1));
        i += 1;
      } else {
        throw new CommandException("ERR Syntax error in HELLO option '" + str(r.arg(i)) + "'");
      }
    }
    if (pass != null) {
      checkCredentials(user, pass);
      s.authenticated(true);
    } else if (!s.authenticated()) {
      throw new CommandException(NOAUTH_HELLO);
    }
    if (setName != null) {
      checkName(setName, "Client names");
      s.name(setName.isEmpty() ? null : setName);
    }
    s.protocol(proto);
    return new RespMessage.MapReply(
        List.of(bulk("server"), bulk("version"), bulk("proto"), bulk("id"), bulk("mode"), bulk("role"),
            bulk("modules")),
        List.of(bulk("kvstore"), bulk(REDIS_VERSION), RespMessage.integer(proto), RespMessage.integer(s.id()),
            bulk("standalone"), bulk("master"), RespMessage.EMPTY_ARRAY));
  }

  private RespMessage auth(RespSession s, RespRequest r) {
    if (r.size() > 3) {
      throw new CommandException(CommandException.SYNTAX);
    }
    byte[] user = r.size() == 3 ? r.arg(1) : null;
    byte[] pass = r.arg(r.size() - 1);
    if (!settings.passwordRequired() && user == null) {
      throw new CommandException(
          "ERR AUTH <password> called without any password configured for the default user. Are you"
              + " sure your configuration is correct?");
    }
    checkCredentials(user, pass);
    s.authenticated(true);
    return RespMessage.OK;
  }

  /** Accepts user {@code default} (or none) with the password; without a password, any. */
  private void checkCredentials(byte[] user, byte[] pass) {
    boolean userOk = user == null || "default".equals(str(user));
    boolean passOk = !settings.passwordRequired() || settings.passwordMatches(pass);
    if (!(userOk & passOk)) {
      throw new CommandException(WRONGPASS);
    }
  }

  private RespMessage select(RespSession s, RespRequest r) {
    int n = RedisNumbers.parseInt(r.arg(1));
    if (keyspace.cluster() != null && n != 0) {
      throw new CommandException(Keyspace.SELECT_IN_CLUSTER);
    }
    if (n < 0 || n >= keyspace.databases()) {
      throw new CommandException("ERR DB index is out of range");
    }
    Table t = keyspace.indexTable(n);
    s.select(n, t, keyspace.syncWrites(t));
    return RespMessage.OK;
  }

  private RespMessage reset(RespSession s, RespRequest r) {
    s.protocol(2);
    s.name(null);
    s.select(0, null, false);
    s.clusterReadOnly(false);
    s.authenticated(!settings.passwordRequired());
    s.endTransaction();
    s.unwatch();
    return new RespMessage.SimpleString("RESET");
  }

  private RespMessage client(RespSession s, RespRequest r) {
    String sub = str(r.arg(1)).toLowerCase(Locale.ROOT);
    switch (sub) {
      case "setname" -> {
        arity(r, 3, "client|setname");
        String name = str(r.arg(2));
        checkName(name, "Client names");
        s.name(name.isEmpty() ? null : name);
        return RespMessage.OK;
      }
      case "getname" -> {
        arity(r, 2, "client|getname");
        String name = s.name();
        return name == null ? RespMessage.NULL : bulk(name);
      }
      case "setinfo" -> {
        arity(r, 4, "client|setinfo");
        String attr = str(r.arg(2)).toLowerCase(Locale.ROOT);
        String value = str(r.arg(3));
        switch (attr) {
          case "lib-name" -> {
            checkName(value, "lib-name");
            s.libName(value.isEmpty() ? null : value);
          }
          case "lib-ver" -> {
            checkName(value, "lib-ver");
            s.libVer(value.isEmpty() ? null : value);
          }
          default -> throw new CommandException("ERR Unrecognized option '" + str(r.arg(2)) + "'");
        }
        return RespMessage.OK;
      }
      case "id" -> {
        arity(r, 2, "client|id");
        return RespMessage.integer(s.id());
      }
      case "info" -> {
        arity(r, 2, "client|info");
        return bulk(describe(s) + "\n");
      }
      case "list" -> {
        StringBuilder sb = new StringBuilder();
        for (RespSession c : clients.all()) {
          sb.append(describe(c)).append('\n');
        }
        return bulk(sb.toString());
      }
      case "help" -> {
        return new RespMessage.ArrayReply(List.of(
            new RespMessage.SimpleString("CLIENT <subcommand> [<arg> [value] [opt] ...]. Subcommands are:"),
            new RespMessage.SimpleString("GETNAME | SETNAME <name> | SETINFO <LIB-NAME|LIB-VER> <value>"),
            new RespMessage.SimpleString("ID | INFO | LIST | HELP")));
      }
      default -> throw new CommandException(
          "ERR unknown subcommand '" + str(r.arg(1)) + "'. Try CLIENT HELP.");
    }
  }

  /**
   * One CLIENT LIST line, its fields in Redis 7's order (those without a meaning here left out).
   * Output buffer: {@code obl} is 0 (no fixed reply buffer: every reply is queued), {@code oll} the
   * replies flushed towards the socket and not yet written, {@code omem} the bytes the output guard counts for the client
   * (queued plus reserved by a reply being built); {@code tot-mem} adds the bytes held for its
   * incomplete request.
   */
  String describe(RespSession c) {
    long now = System.currentTimeMillis();
    QueuedTransaction tx = c.transaction();
    long omem = c.outputBytes();
    return "id=" + c.id() + " addr=" + c.addr() + " laddr=" + c.laddr() + " fd=-1 name=" + orEmpty(c.name())
        + " age=" + (now - c.createdMillis()) / 1000 + " idle=" + (now - c.lastActiveMillis()) / 1000
        + " flags=" + (tx == null ? "N" : "x") + " db=" + Math.max(c.dbIndex(), 0) + " sub=0 psub=0 ssub=0"
        + " multi=" + (tx == null ? -1 : tx.size()) + " obl=0 oll=" + c.queuedReplies() + " omem=" + omem
        + " tot-mem=" + (omem + c.requestBytes()) + " cmd=" + c.lastCommand()
        + " user=default resp=" + c.protocolVersion() + " lib-name=" + orEmpty(c.libName())
        + " lib-ver=" + orEmpty(c.libVer()) + " kv-table=" + c.database() + "/" + c.tableName();
  }

  private static String orEmpty(String s) {
    return s == null ? "" : s;
  }

  /** Redis' rule for names and library attributes: bytes '!' to '~' only. */
  private static void checkName(String value, String what) {
    for (int i = 0; i < value.length(); i++) {
      char c = value.charAt(i);
      if (c < '!' || c > '~') {
        throw new CommandException(
            "ERR " + what + " cannot contain spaces, newlines or special characters.");
      }
    }
  }

  static void arity(RespRequest r, int n, String fullName) {
    if (r.size() != n) {
      throw new CommandException("ERR wrong number of arguments for '" + fullName + "' command");
    }
  }

  static String str(byte[] b) {
    return new String(b, StandardCharsets.UTF_8);
  }

  private static RespMessage bulk(String s) {
    return RespMessage.BulkString.of(s);
  }
}
