package org.kvstore.server.resp;

import java.net.InetSocketAddress;
import java.net.SocketAddress;
import org.kvstore.Table;
import org.kvstore.server.command.Keyspace;
import org.kvstore.server.command.TransactionView;
import org.kvstore.server.command.WatchedKeys;
import org.kvstore.server.output.OutputGuard;
import org.kvstore.server.output.ReplyBudget;

/**
 * The state of one RESP connection: protocol version, authentication, name and library
 * attributes, the table its commands address (an index selected with {@code SELECT}, or any table
 * chosen with {@code KV.USE}) and its transaction. Plain state: {@link RespCommandExecutor} runs the
 * requests.
 *
 * <p>Thread safety: one request at a time ({@link RespCommandHandler} runs a connection's requests
 * in order, on the event loop or on one worker at a time, with a happens-before edge between
 * consecutive ones); fields that other connections read ({@code CLIENT LIST}) or the event loop
 * reads while a worker executes are volatile.
 */
public final class RespSession {
  private final long id;
  private final String addr;
  private final String laddr;
  private final long createdMillis = System.currentTimeMillis();
  private volatile long lastActiveMillis = createdMillis;
  private volatile String lastCommand = "NULL";
  private volatile int protocol = 2;
  private volatile boolean authenticated;
  private volatile String name;
  private volatile String libName;
  private volatile String libVer;
  /** Selected index, or -1 after KV.USE. */
  private volatile int dbIndex;
  private volatile String database = Keyspace.DEFAULT_DB;
  private volatile String tableName = "0";
  private volatile Table table;
  /** Whether the writes to {@code table} wait for an fsync; valid while {@code table} is set. */
  private volatile boolean tableSync;
  /** The commands queued since MULTI, or null outside a transaction; volatile for CLIENT LIST. */
  private volatile QueuedTransaction transaction;
  /** The keys WATCHed since the last EXEC, DISCARD or UNWATCH, or null. */
  private WatchedKeys watched;
  /** While EXEC runs the queued commands: the transaction's view of the table, which they address. */
  private TransactionView transactionView;
  private boolean closeRequested;
  /** On a cluster node: whether the client said READONLY (it may read slots this node does not lead). */
  private volatile boolean clusterReadOnly;
  /** What the connection may still buffer of its replies; set once, before its first request. */
  private volatile ReplyBudget replyBudget = ReplyBudget.UNLIMITED;
  /** The connection's output guard and request decoder, for CLIENT LIST; null without a channel. */
  private volatile OutputGuard output;
  private volatile RespDecoder decoder;
  /** Sends a large reply of known length while it is built; null when the connection has none. */
  private volatile ReplyStreamer streamer;

  RespSession(long id, SocketAddress remote, SocketAddress local, boolean authenticated) {
    this.id = id;
    this.addr = format(remote);
    this.laddr = format(local);
    this.authenticated = authenticated;
  }

  private static String format(SocketAddress a) {
    if (a instanceof InetSocketAddress i) {
      return i.getAddress().getHostAddress() + ":" + i.getPort();
    }
    return String.valueOf(a);
  }

  /**
   * Sets the connection's output guard, which large replies are built against, and its decoder:
   * CLIENT LIST reports the bytes they hold.
   */
  public void buffers(OutputGuard guard, RespDecoder requests) {
    output = guard;
    decoder = requests;
    replyBudget = guard;
  }

  /** Bytes of replies held for the client: CLIENT LIST's {@code omem}. */
  long outputBytes() {
    OutputGuard g = output;
    return g == null ? 0 : g.buffered();
  }

  /** Replies queued for its socket: CLIENT LIST's {@code oll}. */
  int queuedReplies() {
    OutputGuard g = output;
    return g == null ? 0 : g.queuedWrites();
  }

  /** Bytes held for the client's incomplete request, outside the input buffer. */
  long requestBytes() {
    RespDecoder d = decoder;
    return d == null ? 0 : d.heldSnapshot();
  }

  ReplyBudget replyBudget() {
    return replyBudget;
  }

  void streamer(ReplyStreamer s) {
    streamer = s;
  }

  /**
   * Where a reply of known length may be sent while it is built, or null: none is set, or EXEC is
   * running (the reply is one element of EXEC's).
   */
  ReplyStreamer streamer() {
    return transactionView == null ? streamer : null;
  }

  /** The client as a log line names it: {@code id=5 addr=127.0.0.1:40522 name=app cmd=keys}. */
  public String describe() {
    String n = name;
    return "id=" + id + " addr=" + addr + " laddr=" + laddr + " name=" + (n == null ? "" : n) + " cmd=" + lastCommand;
  }

  /** 2 or 3: the protocol replies are encoded in. */
  int protocolVersion() {
    return protocol;
  }

  /** Whether the connection may use the full request limits (true when no password is set). */
  public boolean authenticated() {
    return authenticated;
  }

  /** Whether the client said {@code READONLY} (and not {@code READWRITE} since). */
  boolean clusterReadOnly() {
    return clusterReadOnly;
  }

  void clusterReadOnly(boolean readOnly) {
    this.clusterReadOnly = readOnly;
  }

  /** Whether the last request asked to close the connection after its reply ({@code QUIT}). */
  boolean closeRequested() {
    return closeRequested;
  }

  // ---- state used by the commands ----

  long id() {
    return id;
  }

  String addr() {
    return addr;
  }

  String laddr() {
    return laddr;
  }

  long createdMillis() {
    return createdMillis;
  }

  long lastActiveMillis() {
    return lastActiveMillis;
  }

  String lastCommand() {
    return lastCommand;
  }

  void touched(String command) {
    lastCommand = command;
    lastActiveMillis = System.currentTimeMillis();
  }

  void protocol(int p) {
    protocol = p;
  }

  void authenticated(boolean a) {
    authenticated = a;
  }

  String name() {
    return name;
  }

  void name(String n) {
    name = n;
  }

  String libName() {
    return libName;
  }

  void libName(String n) {
    libName = n;
  }

  String libVer() {
    return libVer;
  }

  void libVer(String v) {
    libVer = v;
  }

  void requestClose() {
    closeRequested = true;
  }

  int dbIndex() {
    return dbIndex;
  }

  String database() {
    return database;
  }

  String tableName() {
    return tableName;
  }

  /**
   * Addresses index {@code n} of the default database, whose handle is {@code t} (null: resolved
   * on first use; {@code sync}: its writes wait for an fsync).
   */
  void select(int n, Table t, boolean sync) {
    dbIndex = n;
    database = Keyspace.DEFAULT_DB;
    tableName = Integer.toString(n);
    tableSync = sync;
    table = t;
  }

  /** Addresses table {@code db.name} (KV.USE), whose handle is {@code t}. */
  void use(String db, String name, Table t, boolean sync) {
    dbIndex = -1;
    database = db;
    tableName = name;
    tableSync = sync;
    table = t;
  }

  /**
   * The table this connection addresses; re-resolved (and for an index, re-created) when needed.
   * While EXEC runs, the transaction's view of it.
   */
  Table table(Keyspace keyspace) {
    if (transactionView != null) {
      return transactionView;
    }
    Table t = table;
    if (t == null) {
      t = dbIndex >= 0 ? keyspace.indexTable(dbIndex) : keyspace.table(database, tableName);
      tableSync = keyspace.syncWrites(t);
      table = t;
    }
    return t;
  }

  /** The cached table handle, or null (no lookup). */
  Table cachedTable() {
    return table;
  }

  /** Whether writes to {@link #cachedTable()} wait for an fsync. REQUIRES: it is not null. */
  boolean cachedTableSync() {
    return tableSync;
  }

  /** Forgets the cached handle (its table was dropped). */
  void invalidateTable() {
    table = null;
  }

  // ---- transactions (RespTransactionCommands) ----

  /** The commands queued since MULTI, or null outside a transaction. */
  QueuedTransaction transaction() {
    return transaction;
  }

  void beginTransaction(QueuedTransaction tx) {
    transaction = tx;
  }

  /** Leaves the transaction (EXEC, DISCARD, RESET) and returns it; null if there was none. */
  QueuedTransaction endTransaction() {
    QueuedTransaction tx = transaction;
    transaction = null;
    return tx;
  }

  /** The connection's watched keys, created on first use. */
  WatchedKeys watched() {
    if (watched == null) {
      watched = new WatchedKeys();
    }
    return watched;
  }

  /** Forgets the watched keys and returns them; null if none were watched. */
  WatchedKeys unwatch() {
    WatchedKeys w = watched;
    watched = null;
    return w;
  }

  /** Sets (or, with null, clears) the view EXEC's commands address instead of the table. */
  void transactionView(TransactionView view) {
    transactionView = view;
  }
}
