package org.kvstore.server.command;

import java.net.SocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.kvstore.KVStoreException;
import org.kvstore.NoSuchTableException;
import org.kvstore.Table;
import org.kvstore.WriteBatch;
import org.kvstore.server.resp.RespMessage;
import org.kvstore.server.resp.RespRequest;
import org.kvstore.server.resp.RespSession;
import org.kvstore.server.resp.RespSessionFactory;
import org.kvstore.server.resp.WriteTarget;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one place where commands get their meaning: it looks a request's command up, checks arity
 * and authentication in Redis' order (existence, arity, then {@code NOAUTH}), runs the handler, and
 * turns failures into error replies: {@link CommandException} carries Redis' exact text, and any
 * other {@link KVStoreException} (an engine or catalog error) becomes {@code -ERR <message>}. The
 * connection stays usable after either.
 *
 * <p>It also decides where a request runs ({@link #mayBlock}): connection commands and reads run on
 * the event loop; writes to a table with sync durability (they wait for an fsync) and slow commands
 * (whole-table scans, catalog changes) run on the worker pool.
 *
 * <p>Thread safety: thread-safe; the registry is immutable after construction, and per-connection
 * state lives in {@link ClientSession}.
 */
public final class CommandExecutor implements RespSessionFactory {
  private static final Logger LOG = LoggerFactory.getLogger(CommandExecutor.class);

  private final Keyspace keyspace;
  private final ServerSettings settings;
  private final ClientRegistry clients = new ClientRegistry();
  /** Sorted by name, for listings. */
  private final Map<String, CommandSpec> commands;
  /** The same, hashed, for the lookup of every request. */
  private final Map<String, CommandSpec> byName;

  public CommandExecutor(Keyspace keyspace, ServerSettings settings) {
    this.keyspace = keyspace;
    this.settings = settings;
    ScanCursors cursors = new ScanCursors();
    Map<String, CommandSpec> all = new TreeMap<>();
    List<CommandSpec> specs = new ArrayList<>();
    specs.addAll(new ConnectionCommands(keyspace, settings, clients).specs());
    specs.addAll(new ServerCommands(keyspace, settings, clients, this::commands).specs());
    specs.addAll(new StringCommands(keyspace, settings).specs());
    specs.addAll(new KeyspaceCommands(keyspace, cursors).specs());
    specs.addAll(new TableCommands(keyspace).specs());
    specs.addAll(new TransactionCommands(keyspace, settings, this).specs());
    for (CommandSpec s : specs) {
      if (all.put(s.name(), s) != null) {
        throw new IllegalStateException("command " + s.name() + " is defined twice");
      }
    }
    this.commands = Collections.unmodifiableMap(all);
    this.byName = Map.copyOf(all);
  }

  /** Every command, by lower-case name. */
  Map<String, CommandSpec> commands() {
    return commands;
  }

  public ServerSettings settings() {
    return settings;
  }

  /** Number of open client connections. */
  public long connectedClients() {
    return clients.connected();
  }

  // ---- RespSessionFactory ----

  @Override
  public RespSession open(SocketAddress remote, SocketAddress local) {
    ClientSession s =
        new ClientSession(this, clients.nextId(), remote, local, !settings.passwordRequired());
    return clients.register(s, settings.maxClients()) ? s : null;
  }

  @Override
  public long maxBulkBytes() {
    return settings.maxBulkBytes();
  }

  @Override
  public int maxMultibulk() {
    return settings.maxMultibulk();
  }

  void closed(ClientSession session) {
    clients.unregister(session);
  }

  // ---- execution ----

  boolean mayBlock(ClientSession session, RespRequest request) {
    CommandSpec spec = byName.get(request.name());
    if (spec == null || spec.has(CommandSpec.CONNECTION) || !session.authenticated()) {
      return false;
    }
    QueuedTransaction tx = session.transaction();
    if (tx != null) {
      // Inside MULTI a command is only queued. EXEC of a non-empty transaction runs on a worker: it
      // locks its keys, which waits for writers of the same stripes (with sync durability, for
      // their fsync), and may write and wait for its own fsync.
      return spec.name().equals("exec") && tx.size() > 0;
    }
    if (spec.has(CommandSpec.SLOW)) {
      return true;
    }
    if (spec.has(CommandSpec.WRITE)) {
      Table t = session.cachedTable();
      return t == null || keyspace.syncWrites(t);
    }
    return false;
  }

  /**
   * Whether {@code request} is a quick read of an authenticated connection ({@code GET},
   * {@code MGET}, {@code EXISTS}, {@code STRLEN}, {@code TYPE}: flagged read-only and fast) whose
   * table is already resolved, so it may run on a read helper thread.
   */
  boolean offloadable(ClientSession session, RespRequest request) {
    if (!session.authenticated() || session.cachedTable() == null || session.transaction() != null) {
      return false;
    }
    CommandSpec spec = byName.get(request.name());
    return spec != null && spec.has(CommandSpec.READONLY) && spec.has(CommandSpec.FAST)
        && !spec.has(CommandSpec.SLOW) && !spec.has(CommandSpec.CONNECTION);
  }

  /**
   * The coalescing target of a plain {@code SET key value} of an authenticated connection whose table
   * is already resolved, or null (the request then runs on its own). Each connection caches its writer;
   * writers of the same table are equal, so the SETs of all connections in one loop turn form one group.
   */
  WriteTarget writeTarget(ClientSession session, RespRequest request) {
    if (!isPlainSet(request) || !session.authenticated() || session.transaction() != null) {
      return null;
    }
    TableSetWriter w = session.setWriter();
    if (w == null) {
      Table t = session.cachedTable();
      if (t == null) {
        return null;
      }
      w = new TableSetWriter(t, keyspace.syncWrites(t));
      session.setWriter(w);
    }
    clients.commandProcessed(1);
    session.touched("set");
    return w;
  }

  /**
   * Runs one request, or inside {@code MULTI} queues it (a command refused there, as one that does
   * not exist or has the wrong number of arguments, makes the transaction fail at {@code EXEC});
   * never throws.
   */
  public RespMessage execute(ClientSession session, RespRequest request) {
    clients.commandProcessed(1);
    String name = request.name();
    CommandSpec spec = byName.get(name);
    QueuedTransaction tx = session.transaction();
    if (spec == null) {
      if (tx != null) {
        tx.abort();
      }
      return new RespMessage.ErrorReply(unknownCommand(request));
    }
    session.touched(name);
    if (!spec.arityOk(request.size())) {
      if (tx != null) {
        tx.abort();
      }
      return new RespMessage.ErrorReply("ERR wrong number of arguments for '" + name + "' command");
    }
    if (!session.authenticated() && !spec.has(CommandSpec.NOAUTH)) {
      return new RespMessage.ErrorReply("NOAUTH Authentication required.");
    }
    if (tx != null && !spec.has(CommandSpec.NOT_QUEUED)) {
      String refused = tx.queue(spec, request);
      return refused == null ? TransactionCommands.QUEUED : new RespMessage.ErrorReply(refused);
    }
    return invoke(session, spec, request);
  }

  /**
   * Runs the handler of {@code spec}, whose arity and authentication were checked, turning failures
   * into error replies; never throws. EXEC runs its queued commands through it.
   */
  RespMessage invoke(ClientSession session, CommandSpec spec, RespRequest request) {
    String name = spec.name();
    try {
      return spec.handler().handle(session, request);
    } catch (CommandException e) {
      return new RespMessage.ErrorReply(e.reply());
    } catch (NoSuchTableException e) {
      session.invalidateTable();
      return new RespMessage.ErrorReply("ERR " + e.getMessage());
    } catch (KVStoreException e) {
      return new RespMessage.ErrorReply("ERR " + e.getMessage());
    } catch (IllegalArgumentException e) {
      return new RespMessage.ErrorReply("ERR " + e.getMessage());
    } catch (RuntimeException e) {
      LOG.warn("command {} failed unexpectedly", name, e);
      return new RespMessage.ErrorReply("ERR internal error in '" + name + "': " + e.getClass().getSimpleName());
    }
  }

  /**
   * Whether {@code next} can be written in one batch with {@code first}: both are plain
   * {@code SET key value} of an authenticated connection. A batch is atomic, which is stronger than
   * the separate writes the client asked for, and costs one fsync instead of one per command.
   */
  boolean batchable(ClientSession session, RespRequest first, RespRequest next) {
    return session.authenticated() && session.transaction() == null && isPlainSet(first)
        && isPlainSet(next);
  }

  private static boolean isPlainSet(RespRequest r) {
    return isPlain(r, 3, 's', 'e', 't');
  }

  private static boolean isPlainGet(RespRequest r) {
    return isPlain(r, 2, 'g', 'e', 't');
  }

  /** Whether {@code r} has {@code args} arguments and the three-letter name {@code a b c}, any case. */
  private static boolean isPlain(RespRequest r, int args, char a, char b, char c) {
    if (r.size() != args) {
      return false;
    }
    byte[] n = r.arg(0);
    return n.length == 3 && (n[0] | 0x20) == a && (n[1] | 0x20) == b && (n[2] | 0x20) == c;
  }

  List<RespMessage> executeBatch(ClientSession session, List<RespRequest> requests) {
    for (RespRequest r : requests) {
      if (!isPlainSet(r) || session.transaction() != null) {
        return requests.stream().map(q -> execute(session, q)).toList();
      }
    }
    clients.commandProcessed(requests.size());
    session.touched("set");
    RespMessage reply;
    try {
      WriteBatch batch = new WriteBatch();
      for (RespRequest r : requests) {
        batch.put(r.arg(1), r.arg(2));
      }
      session.table(keyspace).write(batch);
      reply = RespMessage.OK;
    } catch (NoSuchTableException e) {
      session.invalidateTable();
      reply = new RespMessage.ErrorReply("ERR " + e.getMessage());
    } catch (KVStoreException e) {
      reply = new RespMessage.ErrorReply("ERR " + e.getMessage());
    }
    return Collections.nCopies(requests.size(), reply);
  }

  /**
   * Runs a run of quick reads in order: each stretch of two or more consecutive plain
   * {@code GET key} is read with one {@link Table#multiGetReadOnly} (the engine looks the keys up
   * together), the other requests one by one. When the multi-get fails (a key over the size limit,
   * an engine error), the stretch's GETs run one by one instead, so each gets its own reply.
   */
  List<RespMessage> executeReads(ClientSession session, List<RespRequest> requests) {
    List<RespMessage> out = new ArrayList<>(requests.size());
    int i = 0;
    while (i < requests.size()) {
      int end = i;
      while (end < requests.size() && isPlainGet(requests.get(end))) {
        end++;
      }
      if (end - i >= 2 && session.authenticated() && session.transaction() == null) {
        multiGet(session, requests.subList(i, end), out);
        i = end;
      } else {
        out.add(execute(session, requests.get(i)));
        i++;
      }
    }
    return out;
  }

  private void multiGet(ClientSession session, List<RespRequest> gets, List<RespMessage> out) {
    clients.commandProcessed(gets.size());
    session.touched("get");
    byte[][] keys = new byte[gets.size()][];
    for (int i = 0; i < keys.length; i++) {
      keys[i] = gets.get(i).arg(1);
    }
    byte[][] values = new byte[keys.length][];
    try {
      session.table(keyspace).multiGetReadOnly(keys, values);
    } catch (KVStoreException | IllegalArgumentException e) {
      if (e instanceof NoSuchTableException) {
        session.invalidateTable();
      }
      CommandSpec get = byName.get("get");
      for (RespRequest r : gets) {
        out.add(invoke(session, get, r));
      }
      return;
    }
    for (byte[] v : values) {
      out.add(RespMessage.bulkOrNull(v));
    }
  }

  /**
   * Redis' text: {@code ERR unknown command 'foo', with args beginning with: 'a' 'b' } (each
   * argument quoted and followed by a space, the list cut at about 128 characters).
   */
  static String unknownCommand(RespRequest request) {
    StringBuilder args = new StringBuilder();
    for (int i = 1; i < request.size() && args.length() < 128; i++) {
      String a = new String(request.arg(i), StandardCharsets.UTF_8);
      int room = 128 - args.length();
      args.append('\'').append(a.length() > room ? a.substring(0, room) : a).append("' ");
    }
    String name = new String(request.arg(0), StandardCharsets.UTF_8);
    if (name.length() > 128) {
      name = name.substring(0, 128);
    }
    return "ERR unknown command '" + name + "', with args beginning with: " + args;
  }
}
