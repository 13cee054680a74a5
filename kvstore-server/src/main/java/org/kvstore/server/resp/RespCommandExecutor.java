package org.kvstore.server.resp;

import java.net.SocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import org.kvstore.InvalidArgumentException;
import org.kvstore.KVStoreException;
import org.kvstore.NoSuchTableException;
import org.kvstore.Table;
import org.kvstore.WriteBatch;
import org.kvstore.server.command.BitmapCommands;
import org.kvstore.server.command.CommandException;
import org.kvstore.server.command.ExpiryCommands;
import org.kvstore.server.command.Keyspace;
import org.kvstore.server.command.KeyspaceCommands;
import org.kvstore.server.command.PutWriter;
import org.kvstore.server.command.ServerSettings;
import org.kvstore.server.command.SetOptions;
import org.kvstore.server.command.StringCommands;
import org.kvstore.server.command.TableCommands;
import org.kvstore.server.command.WriteCoalescer;
import org.kvstore.server.output.OutputLimits;

/**
 * Runs RESP requests: for a request whose command {@link RespCommandTable} resolved, it checks
 * arity and authentication in Redis' order (existence, arity, then {@code NOAUTH}), queues it inside
 * {@code MULTI}, else runs the command's handler, which parses the arguments, calls the
 * protocol-neutral semantics ({@link StringCommands} and its neighbours in
 * {@code org.kvstore.server.command}) and builds the reply. Failures become error replies in
 * {@link RespErrors}; the connection stays usable.
 *
 * <p>It also tells {@link RespCommandHandler} where a request runs:
 * <ul>
 *   <li>{@link #coalescingTable}: a plain {@code SET key value}, or one with only an expiry
 *       ({@code SET key value EX|PX|EXAT|PXAT t}: it need not read the key either), whose table is
 *       resolved goes to the event loop's {@link WriteCoalescer}, which hands it to the
 *       {@link PutWriter} with the other plain SETs of that loop turn. Any other plain SET (the
 *       connection's first, before its table is resolved; one inside EXEC) goes to the same
 *       {@link PutWriter} through {@link StringCommands#set}, alone.
 *   <li>{@link #offloadable}: a quick read may run on a read helper, a pipeline's GETs as one
 *       multi-get ({@link #executeReads}).
 *   <li>{@link #mayBlock}: writes to a table with sync durability (they wait for an fsync) and slow
 *       commands (whole-table scans, catalog changes) run on the worker pool; the rest on the loop.
 * </ul>
 *
 * <p>Thread safety: thread-safe; the command table is immutable, and per-connection state lives in
 * {@link RespSession}.
 */
public final class RespCommandExecutor {
  private static final String WRONG_ARITY = "ERR wrong number of arguments ";

  private final Keyspace keyspace;
  private final ServerSettings settings;
  private final ClientRegistry clients = new ClientRegistry();
  private final PutWriter writer = new PutWriter();
  private final ExpiryCommands expiry;
  private final RespCommandTable commands;
  private final RespCommandStats stats;
  private final RespCommandSpec set;
  private final RespCommandSpec get;
  private final RespCommandSpec mget;
  private final RespCommandSpec exists;
  private final RespCommandSpec exec;

  public RespCommandExecutor(Keyspace keyspace, ServerSettings settings) {
    this(keyspace, settings, OutputLimits.unlimited());
  }

  /** {@code outputLimits}: the server's client output buffer limits, whose count INFO stats shows. */
  public RespCommandExecutor(Keyspace keyspace, ServerSettings settings, OutputLimits outputLimits) {
    this.keyspace = keyspace;
    this.settings = settings;
    StringCommands strings = new StringCommands(writer, settings.maxBulkBytes());
    this.expiry = new ExpiryCommands(keyspace.store().options().clock());
    List<RespCommandSpec> specs = new ArrayList<>();
    specs.addAll(new RespConnectionCommands(keyspace, settings, clients).specs());
    specs.addAll(new RespServerCommands(keyspace, settings, clients, writer, this::commands, this::stats,
        outputLimits).specs());
    specs.addAll(new RespStringCommands(keyspace, strings, expiry.clock()).specs());
    specs.addAll(new RespExpiryCommands(keyspace, expiry, strings).specs());
    specs.addAll(new RespBitmapCommands(keyspace, new BitmapCommands(settings.maxBulkBytes())).specs());
    specs.addAll(new RespKeyspaceCommands(keyspace, new KeyspaceCommands()).specs());
    specs.addAll(new RespTableCommands(keyspace, new TableCommands(keyspace)).specs());
    specs.addAll(new RespTransactionCommands(keyspace, settings, this).specs());
    specs.addAll(new RespClusterCommands(keyspace).specs());
    this.commands = new RespCommandTable(specs);
    this.stats = commands.stats();
    this.set = commands.get("set");
    this.get = commands.get("get");
    this.mget = commands.get("mget");
    this.exists = commands.get("exists");
    this.exec = commands.get("exec");
  }

  private Map<String, RespCommandSpec> commands() {
    return commands.all();
  }

  private RespCommandStats stats() {
    return stats;
  }

  public ServerSettings settings() {
    return settings;
  }

  /** Number of open client connections. */
  public long connectedClients() {
    return clients.connected();
  }

  /** The per-command request counters, for {@code /metrics}. */
  public org.kvstore.server.metrics.RequestCounts requestCounts() {
    return stats;
  }

  /** RESP connections accepted since start, for {@code /metrics}. */
  public long acceptedConnections() {
    return clients.totalConnections();
  }

  /** The writer of every plain SET (the coalescers hand their groups to it). */
  public PutWriter putWriter() {
    return writer;
  }

  // ---- connections ----

  /**
   * A session for a new connection, or {@code null} when the server refuses more clients (the
   * caller then answers {@code -ERR max number of clients reached} and closes).
   */
  public RespSession open(SocketAddress remote, SocketAddress local) {
    RespSession s = new RespSession(clients.nextId(), remote, local, !settings.passwordRequired());
    return clients.register(s, settings.maxClients()) ? s : null;
  }

  /** Largest bulk string a new connection accepts (Redis {@code proto-max-bulk-len}). */
  public long maxBulkBytes() {
    return settings.maxBulkBytes();
  }

  /** Most arguments in one request a new connection accepts. */
  public int maxMultibulk() {
    return settings.maxMultibulk();
  }

  /** The connection of {@code session} closed. Idempotent. */
  void closed(RespSession session) {
    clients.unregister(session);
  }

  // ---- where a request runs ----

  /** Looks the command of {@code request} up (once per request). */
  void resolve(RespRequest request) {
    commands.resolve(request);
  }

  /** Whether {@code request} may wait on I/O, so it must run on a worker rather than the event loop. */
  boolean mayBlock(RespSession session, RespRequest request) {
    RespCommandSpec spec = request.spec();
    if (spec == null || spec.has(RespCommandSpec.CONNECTION) || !session.authenticated()) {
      return false;
    }
    if (keyspace.cluster() != null) {
      // Every data command waits for Raft (a write's majority, a read's barrier) or for an election.
      return true;
    }
    QueuedTransaction tx = session.transaction();
    if (tx != null) {
      // Inside MULTI a command is only queued. EXEC of a non-empty transaction runs on a worker: it
      // locks its keys, which waits for writers of the same stripes (with sync durability, for
      // their fsync), and may write and wait for its own fsync.
      return spec == exec && tx.size() > 0;
    }
    if (spec.has(RespCommandSpec.SLOW) || isLargeMget(request)) {
      return true;
    }
    if (spec.has(RespCommandSpec.WRITE)) {
      return session.cachedTable() == null || session.cachedTableSync();
    }
    return false;
  }

  /**
   * Whether {@code request} is a quick read of an authenticated connection ({@code GET},
   * {@code MGET}, {@code EXISTS}, {@code STRLEN}, {@code TYPE}: flagged read-only and fast) whose
   * table is already resolved, so it may run on a read helper thread.
   */
  boolean offloadable(RespSession session, RespRequest request) {
    if (!session.authenticated() || session.cachedTable() == null || session.transaction() != null
        || keyspace.cluster() != null) {
      return false;
    }
    RespCommandSpec spec = request.spec();
    return spec != null && spec.has(RespCommandSpec.READONLY) && spec.has(RespCommandSpec.FAST)
        && !spec.has(RespCommandSpec.SLOW) && !spec.has(RespCommandSpec.CONNECTION) && !isLargeMget(request);
  }

  /**
   * Whether {@code request} is a read a cluster node may run together with the reads after it
   * ({@link #executeClusterGets}): a plain {@code GET key}, an {@code MGET} (not one so large that
   * it streams its reply) or an {@code EXISTS}; one read barrier per shard for the run rather than
   * one per command. Not for a {@code READONLY} connection, whose reads may read a replica each its
   * own way, nor inside {@code MULTI}.
   */
  boolean clusterBatchableGet(RespSession session, RespRequest request) {
    return keyspace.cluster() != null && session.authenticated() && session.transaction() == null
        && !session.clusterReadOnly() && (isPlainGet(request) || isKeysRead(request));
  }

  /** An {@code MGET} or {@code EXISTS} of one key or more that {@link #multiGet} answers. */
  private boolean isKeysRead(RespRequest r) {
    return (r.spec() == mget || r.spec() == exists) && r.size() >= 2 && !isLargeMget(r);
  }

  /**
   * A pipelined run of reads ({@link #clusterBatchableGet}) on a cluster node, in order: each
   * command's slot is checked as {@link #execute} does ({@code MOVED}, {@code CLUSTERDOWN},
   * {@code CROSSSLOT}), then the keys of the commands that may run here are read with one
   * multi-get, which takes one read barrier per shard
   * ({@link org.kvstore.cluster.ShardedTable#multiGetReadOnly}); linearizable as a whole, so each
   * command is. Never throws.
   */
  List<RespMessage> executeClusterGets(RespSession session, List<RespRequest> gets) {
    RespMessage[] out = new RespMessage[gets.size()];
    List<RespRequest> routed = new ArrayList<>(gets.size());
    List<Integer> positions = new ArrayList<>(gets.size());
    for (int i = 0; i < gets.size(); i++) {
      RespRequest r = gets.get(i);
      String refused = route(session, r.spec(), r);
      if (refused != null) {
        clients.commandProcessed(1);
        session.touched(r.spec().name());
        out[i] = rejected(stats.slot(r.spec(), r), refused);
      } else {
        routed.add(r);
        positions.add(i);
      }
    }
    if (!routed.isEmpty()) {
      List<RespMessage> read = new ArrayList<>(routed.size());
      multiGet(session, routed, read);
      for (int j = 0; j < read.size(); j++) {
        out[positions.get(j)] = read.get(j);
      }
    }
    return java.util.Arrays.asList(out);
  }

  /**
   * Whether {@code request} is a {@code SET key value}, or one with an expiry ({@code EX}, {@code PX},
   * {@code EXAT}, {@code PXAT}; {@link #isCoalescableSet}, which fixes its absolute expiry now),
   * that a cluster node may write together with the SETs after it ({@link
   * #executeClusterSetsAsync}). Not inside {@code MULTI}.
   */
  boolean clusterBatchableSet(RespSession session, RespRequest request) {
    return keyspace.cluster() != null && session.authenticated() && session.transaction() == null
        && isCoalescableSet(request);
  }

  /**
   * A run of SETs ({@link #clusterBatchableSet}) on a cluster node (one, or pipelined), without a worker where it can be: the SETs are grouped by shard,
   * and a group whose shard this node leads, with its keys' latches free, is proposed from the
   * calling event loop and answered when its entry is applied ({@link
   * org.kvstore.cluster.ShardedTable#tryWriteAsync}); any other group (another node leads it, an
   * election, a latch held by a read-modify-write) is written by {@link #writeClusterSets} on
   * {@code workers}. The future completes with one reply per SET, in order, on the thread that
   * learned the last outcome; it never fails.
   *
   * @throws java.util.concurrent.RejectedExecutionException if {@code workers} refuses a group
   */
  CompletableFuture<List<RespMessage>> executeClusterSetsAsync(RespSession session, List<RespRequest> sets,
      Executor workers) {
    for (int i = 0; i < sets.size(); i++) {
      clients.commandProcessed(1);
      session.touched("set");
    }
    org.kvstore.cluster.ShardedTable cluster = keyspace.cluster().table();
    Map<Integer, List<Integer>> byShard = new java.util.LinkedHashMap<>();
    for (int i = 0; i < sets.size(); i++) {
      byShard.computeIfAbsent(cluster.shardOfKey(sets.get(i).arg(1)), s -> new ArrayList<>()).add(i);
    }
    List<List<Integer>> indexes = new ArrayList<>(byShard.values());
    List<CompletableFuture<List<RespMessage>>> groups = new ArrayList<>(indexes.size());
    for (List<Integer> group : indexes) {
      List<RespRequest> requests = new ArrayList<>(group.size());
      for (int i : group) {
        requests.add(sets.get(i));
      }
      groups.add(writeClusterSetsAsync(session, requests, cluster, workers));
    }
    if (groups.size() == 1) {
      return groups.get(0);
    }
    return CompletableFuture.allOf(groups.toArray(CompletableFuture[]::new)).thenApply(v -> {
      RespMessage[] out = new RespMessage[sets.size()];
      for (int g = 0; g < groups.size(); g++) {
        List<RespMessage> replies = groups.get(g).join();
        List<Integer> group = indexes.get(g);
        for (int j = 0; j < group.size(); j++) {
          out[group.get(j)] = replies.get(j);
        }
      }
      return java.util.Arrays.asList(out);
    });
  }

  /** One shard's SETs: proposed from here when they can be, else by {@link #writeClusterSets} on {@code workers}. */
  private CompletableFuture<List<RespMessage>> writeClusterSetsAsync(RespSession session, List<RespRequest> group,
      org.kvstore.cluster.ShardedTable cluster, Executor workers) {
    WriteBatch batch = new WriteBatch();
    for (RespRequest r : group) {
      batch.put(r.arg(1), r.arg(2), r.putOptions());
    }
    long start = System.nanoTime();
    CompletableFuture<Void> written;
    try {
      written = cluster.tryWriteAsync(batch);
    } catch (KVStoreException refused) {
      written = null; // a bad argument: writeClusterSets answers each SET
    }
    if (written == null) {
      return CompletableFuture.supplyAsync(() -> {
        try {
          return writeClusterSets(session, group);
        } catch (RuntimeException e) {
          return Collections.nCopies(group.size(), failed(session, e));
        }
      }, workers);
    }
    return written.handle((v, e) -> {
      if (e == null) {
        stats.called(set.id(), group.size(), System.nanoTime() - start);
        return Collections.nCopies(group.size(), RespMessage.OK);
      }
      Throwable cause = e instanceof java.util.concurrent.CompletionException && e.getCause() != null ? e.getCause() : e;
      if (cause instanceof KVStoreException k) {
        List<RespMessage> out = new ArrayList<>(group.size());
        for (int i = 0; i < group.size(); i++) {
          out.add(setReply(session, k));
        }
        return out;
      }
      return Collections.nCopies(group.size(), failed(session, cause));
    });
  }

  /**
   * Plain SETs on a cluster node, in order, on a thread that may wait (requests already counted): each SET's slot is checked as
   * {@link #route} does ({@code MOVED}, {@code CLUSTERDOWN} in its place), then the SETs of each
   * shard are written as one batch, one Raft entry (in request order, so of two SETs of a key the
   * later wins). A batch that fails on a bad argument is written again SET by SET, so only the SET
   * at fault gets the error; any other failure (an unknown outcome, no leader) is the reply of every
   * SET of that batch. Never throws.
   */
  private List<RespMessage> writeClusterSets(RespSession session, List<RespRequest> sets) {
    RespMessage[] out = new RespMessage[sets.size()];
    Map<Object, List<Integer>> byShard = new java.util.LinkedHashMap<>();
    org.kvstore.cluster.ShardedTable cluster = keyspace.cluster().table();
    for (int i = 0; i < sets.size(); i++) {
      RespRequest r = sets.get(i);
      Object shard;
      try {
        // What route() checks for a one-key write, keeping the shard it finds.
        shard = cluster.leaderOf(org.kvstore.cluster.slots.HashSlot.of(r.arg(1)));
      } catch (KVStoreException e) {
        out[i] = rejected(stats.slot(set, r), RespErrors.reply("set", e, session).text());
        continue;
      }
      byShard.computeIfAbsent(shard, s -> new ArrayList<>()).add(i);
    }
    for (List<Integer> group : byShard.values()) {
      WriteBatch batch = new WriteBatch();
      for (int i : group) {
        batch.put(sets.get(i).arg(1), sets.get(i).arg(2), sets.get(i).putOptions());
      }
      long start = System.nanoTime();
      try {
        session.table(keyspace).write(batch);
        stats.called(set.id(), group.size(), System.nanoTime() - start);
        for (int i : group) {
          out[i] = RespMessage.OK;
        }
      } catch (InvalidArgumentException e) {
        for (int i : group) {
          out[i] = invoke(session, set, sets.get(i));
        }
      } catch (KVStoreException e) {
        for (int i : group) {
          out[i] = setReply(session, e);
        }
      }
    }
    return java.util.Arrays.asList(out);
  }

  /** An MGET of so many keys that it runs on a worker and builds its reply encoded. */
  private boolean isLargeMget(RespRequest request) {
    return request.spec() == mget && request.size() - 1 > RespStringCommands.LARGE_MGET;
  }

  /**
   * The table a plain {@code SET key value} (or one with only an expiry, see
   * {@link #isCoalescableSet}) of an authenticated connection goes to through the event loop's
   * {@link WriteCoalescer}, when that table is already resolved; else null (the request then runs
   * through {@link #execute}). Counts the request as processed.
   */
  Table coalescingTable(RespSession session, RespRequest request) {
    if (!session.authenticated() || session.transaction() != null || keyspace.cluster() != null
        || !isCoalescableSet(request)) {
      return null;
    }
    Table t = session.cachedTable();
    if (t != null) {
      clients.commandProcessed(1);
      session.touched("set");
    }
    return t;
  }

  /** Whether {@code request} is {@code SET key value}, without options. */
  boolean isPlainSet(RespRequest request) {
    return request.spec() == set && request.size() == 3;
  }

  /**
   * Whether {@code request} is a SET that writes without reading the key: {@code SET key value},
   * or {@code SET key value EX|PX|EXAT|PXAT t} with a valid time, whose absolute expiry (from the
   * store's clock, now) it then carries ({@link RespRequest#putOptions()}). A SET with an invalid
   * time is not: it runs alone, which answers its error.
   */
  private boolean isCoalescableSet(RespRequest request) {
    if (isPlainSet(request)) {
      return true;
    }
    if (request.spec() != set || request.size() != 5) {
      return false;
    }
    SetOptions options;
    try {
      options = RespStringCommands.setOptions(request, expiry.clock().millis());
    } catch (CommandException e) {
      return false;
    }
    if (!options.isPlain()) {
      return false;
    }
    request.putOptions(options.putOptions());
    return true;
  }

  /**
   * {@code n} coalesced plain SETs were written (or failed), {@code elapsedNanos} after they were
   * handed to the coalescer: counted as {@code n} calls taking that time together.
   */
  void setsWritten(int n, long elapsedNanos) {
    stats.called(set.id(), n, elapsedNanos);
  }

  /** The reply to a coalesced plain SET: {@code +OK}, or the reply to its failure. */
  RespMessage setReply(RespSession session, RuntimeException failure) {
    if (failure == null) {
      return RespMessage.OK;
    }
    stats.failed(set.id());
    return stats.errorReply(RespErrors.reply("set", failure, session));
  }

  /** The reply to a request that failed outside any command's handler (a bug). */
  RespMessage failed(RespSession session, Throwable failure) {
    return stats.errorReply(RespErrors.reply(null, failure, session));
  }

  /** An error reply sent outside any command (a protocol error, a refusal at shutdown), counted. */
  RespMessage error(String text) {
    return stats.errorReply(new RespMessage.ErrorReply(text));
  }

  // ---- execution ----

  /**
   * Runs one request, or inside {@code MULTI} queues it (a command refused there, as one that does
   * not exist or has the wrong number of arguments, makes the transaction fail at {@code EXEC});
   * never throws.
   */
  RespMessage execute(RespSession session, RespRequest request) {
    clients.commandProcessed(1);
    commands.resolve(request);
    RespCommandSpec spec = request.spec();
    QueuedTransaction tx = session.transaction();
    if (spec == null) {
      if (tx != null) {
        tx.abort();
      }
      return stats.errorReply(new RespMessage.ErrorReply(unknownCommand(request)));
    }
    String name = spec.name();
    session.touched(name);
    if (!spec.arityOk(request.size())) {
      if (tx != null) {
        tx.abort();
      }
      return rejected(spec.id(), WRONG_ARITY + "for '" + name + "' command");
    }
    if (!session.authenticated() && !spec.has(RespCommandSpec.NOAUTH)) {
      return rejected(stats.slot(spec, request), "NOAUTH Authentication required.");
    }
    if (keyspace.cluster() != null && spec.hasKeys()) {
      String refused = route(session, spec, request);
      if (refused != null) {
        if (tx != null) {
          tx.abort();
        }
        return rejected(stats.slot(spec, request), refused);
      }
    }
    if (tx != null && !spec.has(RespCommandSpec.NOT_QUEUED)) {
      String refused = tx.queue(spec, request);
      return refused == null
          ? RespTransactionCommands.QUEUED : rejected(stats.slot(spec, request), refused);
    }
    return invoke(session, spec, request);
  }

  /**
   * On a cluster node, as Redis Cluster before it runs a command with keys: null when the keys
   * hash to one slot that this node leads (or, after {@code READONLY}, a read of a slot it has a
   * replica of), else the error reply: {@code CROSSSLOT}, {@code MOVED} to the slot's leader, or
   * {@code CLUSTERDOWN} when the slot's shard elected no leader within the wait.
   */
  private String route(RespSession session, RespCommandSpec spec, RespRequest request) {
    List<byte[]> keys = spec.keyArgs(request);
    if (keys.isEmpty()) {
      return null;
    }
    try {
      int slot = org.kvstore.cluster.ShardedTable.commonSlot(keys);
      org.kvstore.cluster.ShardedTable table = keyspace.cluster().table();
      if (session.clusterReadOnly() && spec.has(RespCommandSpec.READONLY) && table.hasReplicaOf(slot)) {
        return null;
      }
      table.leaderOf(slot);
      return null;
    } catch (KVStoreException e) {
      return RespErrors.reply(spec.name(), e, session).text();
    }
  }

  private RespMessage rejected(int statsSlot, String error) {
    stats.rejected(statsSlot);
    return stats.errorReply(new RespMessage.ErrorReply(error));
  }

  /**
   * Runs the handler of {@code spec}, whose arity and authentication were checked; a failure
   * becomes its error reply ({@link RespErrors}). Counts the call, its time and an error reply
   * ({@link RespCommandStats}). Never throws. EXEC runs its queued commands through it.
   */
  RespMessage invoke(RespSession session, RespCommandSpec spec, RespRequest request) {
    long start = System.nanoTime();
    RespMessage reply;
    try {
      reply = spec.handler().handle(session, request);
    } catch (RuntimeException e) {
      reply = RespErrors.reply(spec.name(), e, session);
    }
    int slot = stats.slot(spec, request);
    if (reply instanceof RespMessage.ErrorReply error) {
      stats.errorReply(error);
      if (!spec.subcommands().isEmpty() && error.text().startsWith(WRONG_ARITY)) {
        // A subcommand's arity, checked by its container's handler: Redis checks it before the
        // call, so it is a rejection.
        stats.rejected(slot);
        return reply;
      }
      stats.failed(slot);
    }
    stats.called(slot, 1, System.nanoTime() - start);
    return reply;
  }

  /**
   * Runs a run of quick reads in order: each stretch of two or more consecutive plain
   * {@code GET key} is read with one {@link StringCommands#multiGet} (the engine looks the keys up
   * together), the other requests one by one. When the multi-get fails (a key over the size limit,
   * an engine error), the stretch's GETs run one by one instead, so each gets its own reply.
   */
  List<RespMessage> executeReads(RespSession session, List<RespRequest> requests) {
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

  private boolean isPlainGet(RespRequest r) {
    return r.spec() == get && r.size() == 2;
  }

  /**
   * Answers {@code reads} (plain GETs, and on a cluster node MGETs and EXISTSes: {@link
   * #clusterBatchableGet}) with one multi-get of all their keys, in order.
   */
  private void multiGet(RespSession session, List<RespRequest> reads, List<RespMessage> out) {
    clients.commandProcessed(reads.size());
    session.touched(reads.get(reads.size() - 1).spec().name());
    int n = 0;
    for (RespRequest r : reads) {
      n += r.size() - 1;
    }
    byte[][] keys = new byte[n][];
    int k = 0;
    for (RespRequest r : reads) {
      for (int a = 1; a < r.size(); a++) {
        keys[k++] = r.arg(a);
      }
    }
    byte[][] values = new byte[n][];
    long start = System.nanoTime();
    try {
      session.table(keyspace).multiGetReadOnly(keys, values);
    } catch (KVStoreException | IllegalArgumentException e) {
      if (e instanceof NoSuchTableException) {
        session.invalidateTable(); // the commands below resolve the table again
      }
      // Each command again, alone: only the one at fault gets the error (mapped by RespErrors).
      for (RespRequest r : reads) {
        out.add(invoke(session, r.spec(), r));
      }
      return;
    }
    long elapsed = System.nanoTime() - start;
    int gets = 0;
    k = 0;
    for (RespRequest r : reads) {
      int m = r.size() - 1;
      if (r.spec() == get) {
        gets++;
        out.add(RespMessage.bulkOrNull(values[k]));
        k++;
        continue;
      }
      stats.called(r.spec().id(), 1, elapsed * m / n);
      if (r.spec() == exists) {
        int found = 0;
        for (int i = k; i < k + m; i++) {
          found += values[i] == null ? 0 : 1;
        }
        out.add(RespMessage.integer(found));
      } else {
        List<RespMessage> items = new ArrayList<>(m);
        for (int i = k; i < k + m; i++) {
          items.add(RespMessage.bulkOrNull(values[i]));
        }
        out.add(new RespMessage.ArrayReply(items));
      }
      k += m;
    }
    if (gets > 0) {
      stats.called(get.id(), gets, elapsed * gets / n);
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
