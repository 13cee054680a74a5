package org.kvstore.server.command;

import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.List;
import org.kvstore.Table;
import org.kvstore.server.resp.RespMessage;
import org.kvstore.server.resp.RespRequest;
import org.kvstore.server.resp.RespSession;
import org.kvstore.server.resp.WriteTarget;

/**
 * The state of one client connection: protocol version, authentication, name and library
 * attributes, and the table its commands address (an index selected with {@code SELECT}, or any
 * table chosen with {@code KV.USE}). It executes requests through the shared
 * {@link CommandExecutor}.
 *
 * <p>Thread safety: one request at a time (see {@link RespSession}); fields that other connections
 * read ({@code CLIENT LIST}) or the event loop reads while a worker executes are volatile.
 */
public final class ClientSession implements RespSession {
  private final CommandExecutor executor;
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
  /** The grouped-SET target of {@code table}, or null; event-loop confined. */
  private TableSetWriter setWriter;
  /** The commands queued since MULTI, or null outside a transaction; volatile for CLIENT LIST. */
  private volatile QueuedTransaction transaction;
  /** The keys WATCHed since the last EXEC, DISCARD or UNWATCH, or null. */
  private WatchedKeys watched;
  /** While EXEC runs the queued commands: the transaction's view of the table, which they address. */
  private TransactionTable transactionView;
  private boolean closeRequested;

  ClientSession(CommandExecutor executor, long id, SocketAddress remote, SocketAddress local, boolean authenticated) {
    this.executor = executor;
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

  // ---- RespSession ----

  @Override
  public boolean mayBlock(RespRequest request) {
    return executor.mayBlock(this, request);
  }

  @Override
  public boolean offloadable(RespRequest request) {
    return executor.offloadable(this, request);
  }

  @Override
  public RespMessage execute(RespRequest request) {
    return executor.execute(this, request);
  }

  @Override
  public List<RespMessage> executeBatch(List<RespRequest> requests) {
    return executor.executeBatch(this, requests);
  }

  @Override
  public List<RespMessage> executeReads(List<RespRequest> requests) {
    return executor.executeReads(this, requests);
  }

  @Override
  public boolean batchable(RespRequest first, RespRequest next) {
    return executor.batchable(this, first, next);
  }

  @Override
  public WriteTarget writeTarget(RespRequest request) {
    return executor.writeTarget(this, request);
  }

  @Override
  public int protocolVersion() {
    return protocol;
  }

  @Override
  public boolean authenticated() {
    return authenticated;
  }

  @Override
  public boolean closeRequested() {
    return closeRequested;
  }

  @Override
  public void closed() {
    executor.closed(this);
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

  /** Addresses index {@code n} of the default database. */
  void select(int n, Table t) {
    dbIndex = n;
    database = Keyspace.DEFAULT_DB;
    tableName = Integer.toString(n);
    table = t;
  }

  /** Addresses table {@code db.name} (KV.USE). */
  void use(String db, String name, Table t) {
    dbIndex = -1;
    database = db;
    tableName = name;
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
      table = t;
    }
    return t;
  }

  /** The grouped-SET writer of the cached table, or null. Called on the event loop only. */
  TableSetWriter setWriter() {
    TableSetWriter w = setWriter;
    Table t = table;
    if (w != null && (w.table() != t || w.dropped())) {
      if (w.dropped() && t == w.table()) {
        table = null;
      }
      setWriter = null;
      w = null;
    }
    return w;
  }

  void setWriter(TableSetWriter w) {
    setWriter = w;
  }

  /** The cached table handle, or null (no lookup). */
  Table cachedTable() {
    return table;
  }

  /** Forgets the cached handle (its table was dropped). */
  void invalidateTable() {
    table = null;
  }

  // ---- transactions (TransactionCommands) ----

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
  void transactionView(TransactionTable view) {
    transactionView = view;
  }
}
