package org.kvstore.server.thrift;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.function.Supplier;
import org.apache.thrift.TBaseHelper;
import org.apache.thrift.TException;
import org.kvstore.Entry;
import org.kvstore.KVStoreException;
import org.kvstore.Precondition;
import org.kvstore.PreconditionFailedException;
import org.kvstore.Table;
import org.kvstore.TableInfo;
import org.kvstore.WriteBatch;
import org.kvstore.WriteResult;
import org.kvstore.server.command.Keyspace;
import org.kvstore.server.command.ScanPages;
import org.kvstore.server.command.TableCommands;
import org.kvstore.thrift.EntryMeta;
import org.kvstore.thrift.ErrorCode;
import org.kvstore.thrift.GetResult;
import org.kvstore.thrift.InvalidArgument;
import org.kvstore.thrift.KeyValue;
import org.kvstore.thrift.KvService;
import org.kvstore.thrift.Mutation;
import org.kvstore.thrift.MutationResult;
import org.kvstore.thrift.MutationType;
import org.kvstore.thrift.PreconditionFailed;
import org.kvstore.thrift.PutOptions;
import org.kvstore.thrift.ScanPage;
import org.kvstore.thrift.ScanRequest;
import org.kvstore.thrift.TableSpec;
import org.kvstore.thrift.Unauthorized;

/**
 * The {@code KvService} of kvstore.thrift for one connection: the store's tables by
 * {@code (db, table)} name, the same tables and bytes RESP and HTTP serve; the connection's only
 * state is whether it has authenticated. The store's exceptions become the declared ones
 * ({@link ThriftErrors}); anything else escapes to libthrift, which logs it and answers
 * {@code INTERNAL_ERROR}, and the connection stays usable.
 *
 * <p>Thread safety: confined: a connection runs one call at a time (on its event loop or a worker).
 */
public final class ThriftKvService implements KvService.Iface {
  /** Most entries a scan page holds. */
  public static final int MAX_SCAN_LIMIT = 1000;

  private final Keyspace keyspace;
  private final TableCommands tables;
  private final ThriftLimits limits;
  /** SHA-256 of the password, or null when the server has none. */
  private final byte[] passwordDigest;
  private boolean authenticated;

  /**
   * @param passwordDigest {@link #digest} of the server's password, or null for none
   */
  public ThriftKvService(Keyspace keyspace, ThriftLimits limits, byte[] passwordDigest) {
    this.keyspace = keyspace;
    this.tables = new TableCommands(keyspace);
    this.limits = limits;
    this.passwordDigest = passwordDigest;
    this.authenticated = passwordDigest == null;
  }

  /** The digest {@link #authenticate} compares, so passwords of any length compare in constant time. */
  public static byte[] digest(String password) {
    try {
      return MessageDigest.getInstance("SHA-256").digest(password.getBytes(StandardCharsets.UTF_8));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("the JDK has no SHA-256", e);
    }
  }

  /**
   * Whether a call of {@code method} on the table {@code dbAndTable} names (read only for writes)
   * may block its thread (an fsync, a scan, disk
   * I/O of the catalog), so it must run on a worker rather than the event loop.
   */
  public boolean mayBlock(String method, Supplier<String[]> dbAndTable) {
    switch (method) {
      case "ping", "authenticate", "get", "multiGet", "getWithMeta", "listDbs", "listTables", "describeTable":
        return false;
      case "put", "remove", "expire", "persist":
        String[] names = dbAndTable.get();
        if (names == null || names[0] == null || names[1] == null) {
          return false; // fails at once
        }
        try {
          return keyspace.syncWrites(keyspace.table(names[0], names[1]));
        } catch (KVStoreException e) {
          return false;
        }
      default:
        return true;
    }
  }

  @Override
  public void authenticate(String password) throws Unauthorized {
    if (passwordDigest == null) {
      return;
    }
    boolean ok = password != null && MessageDigest.isEqual(passwordDigest, digest(password));
    if (!ok) {
      throw new Unauthorized("invalid password");
    }
    authenticated = true;
  }

  @Override
  public String ping() throws Unauthorized {
    checkAuthenticated();
    return "pong";
  }

  @Override
  public ByteBuffer get(String db, String table, ByteBuffer key) throws TException {
    checkAuthenticated();
    byte[] k = key(key);
    try {
      byte[] value = table(db, table).getReadOnly(k);
      if (value == null) {
        throw missingKey(db, table);
      }
      return ByteBuffer.wrap(value);
    } catch (KVStoreException e) {
      throw ThriftErrors.of(e);
    }
  }

  @Override
  public List<GetResult> multiGet(String db, String table, List<ByteBuffer> keys) throws TException {
    checkAuthenticated();
    require(keys != null, "keys");
    byte[][] k = new byte[keys.size()][];
    for (int i = 0; i < k.length; i++) {
      k[i] = key(keys.get(i));
    }
    byte[][] values = new byte[k.length][];
    try {
      table(db, table).multiGetReadOnly(k, values);
    } catch (KVStoreException e) {
      throw ThriftErrors.of(e);
    }
    List<GetResult> out = new ArrayList<>(values.length);
    long bytes = 0;
    for (byte[] v : values) {
      GetResult r = new GetResult(v != null);
      if (v != null) {
        r.setValue(v);
        bytes += v.length;
      }
      out.add(r);
    }
    if (bytes > limits.maxValueBytes() && values.length > 1) {
      throw ThriftErrors.invalid("multiGet reply of " + bytes + " bytes of values exceeds the limit of "
          + limits.maxValueBytes() + " bytes; ask for fewer keys", ErrorCode.TOO_LARGE);
    }
    return out;
  }

  @Override
  public EntryMeta getWithMeta(String db, String table, ByteBuffer key) throws TException {
    checkAuthenticated();
    byte[] k = key(key);
    try {
      Entry e = table(db, table).getEntry(k);
      if (e == null) {
        throw missingKey(db, table);
      }
      EntryMeta m = new EntryMeta(ByteBuffer.wrap(e.value()), e.version());
      if (e.hasExpiry()) {
        m.setTtlMillis(Math.max(1, e.remainingMillis(now())));
      }
      return m;
    } catch (KVStoreException e) {
      throw ThriftErrors.of(e);
    }
  }

  @Override
  public long put(String db, String table, ByteBuffer key, ByteBuffer value, PutOptions options) throws TException {
    checkAuthenticated();
    byte[] k = key(key);
    byte[] v = value(value);
    org.kvstore.PutOptions po = putOptions(options);
    try {
      WriteResult r = table(db, table).put(k, v, po);
      if (!r.applied()) {
        throw preconditionFailed(po.precondition(), r.previous());
      }
      return r.version();
    } catch (KVStoreException e) {
      throw ThriftErrors.of(e);
    }
  }

  @Override
  public boolean remove(String db, String table, ByteBuffer key, PutOptions options) throws TException {
    checkAuthenticated();
    byte[] k = key(key);
    Precondition p = removePrecondition(options);
    try {
      WriteResult r = table(db, table).remove(k, p);
      if (!r.applied() && r.previous() != null) {
        throw preconditionFailed(p, r.previous());
      }
      return r.applied();
    } catch (KVStoreException e) {
      throw ThriftErrors.of(e);
    }
  }

  @Override
  public List<MutationResult> batch(String db, String table, List<Mutation> ops, boolean atomic) throws TException {
    checkAuthenticated();
    require(ops != null, "ops");
    List<byte[]> keys = new ArrayList<>(ops.size());
    List<byte[]> values = new ArrayList<>(ops.size());
    List<Object> conditions = new ArrayList<>(ops.size());
    long bytes = 0;
    for (Mutation m : ops) {
      require(m != null && m.getType() != null, "mutation type");
      byte[] k = key(m.bufferForKey());
      keys.add(k);
      if (m.getType() == MutationType.PUT) {
        require(m.isSetValue(), "value of a PUT mutation");
        byte[] v = value(m.bufferForValue());
        bytes += v.length;
        values.add(v);
        conditions.add(putOptions(m.getOptions()));
      } else {
        values.add(null);
        conditions.add(removePrecondition(m.getOptions()));
      }
    }
    if (bytes > limits.maxValueBytes()) {
      throw ThriftErrors.invalid("batch of " + bytes + " bytes of values exceeds the limit of "
          + limits.maxValueBytes() + " bytes", ErrorCode.TOO_LARGE);
    }
    try {
      Table t = table(db, table);
      return atomic ? atomicBatch(t, keys, values, conditions) : separateWrites(t, keys, values, conditions);
    } catch (KVStoreException e) {
      throw ThriftErrors.of(e);
    }
  }

  /** All or nothing: one store batch; the first failing precondition fails it. */
  private static List<MutationResult> atomicBatch(Table t, List<byte[]> keys, List<byte[]> values,
      List<Object> conditions) throws PreconditionFailed {
    WriteBatch batch = new WriteBatch();
    for (int i = 0; i < keys.size(); i++) {
      if (values.get(i) != null) {
        batch.put(keys.get(i), values.get(i), (org.kvstore.PutOptions) conditions.get(i));
      } else {
        batch.remove(keys.get(i), (Precondition) conditions.get(i));
      }
    }
    try {
      t.write(batch);
    } catch (PreconditionFailedException e) {
      throw new PreconditionFailed("nothing of the batch was written: " + e.getMessage());
    }
    // The store does not return a batch's version; the puts share it, so one read gives it (a
    // writer that changed the key since is reported with its own, newer version).
    List<MutationResult> out = new ArrayList<>(keys.size());
    for (int i = 0; i < keys.size(); i++) {
      MutationResult r = new MutationResult(true);
      if (values.get(i) != null) {
        Entry e = t.getEntry(keys.get(i));
        if (e != null) {
          r.setVersion(e.version());
        }
      }
      out.add(r);
    }
    return out;
  }

  /** Each mutation on its own: one that fails its precondition is reported and the rest go on. */
  private static List<MutationResult> separateWrites(Table t, List<byte[]> keys, List<byte[]> values,
      List<Object> conditions) {
    List<MutationResult> out = new ArrayList<>(keys.size());
    for (int i = 0; i < keys.size(); i++) {
      WriteResult w = values.get(i) != null
          ? t.put(keys.get(i), values.get(i), (org.kvstore.PutOptions) conditions.get(i))
          : t.remove(keys.get(i), (Precondition) conditions.get(i));
      MutationResult r = new MutationResult(w.applied());
      if (values.get(i) != null && w.applied()) {
        r.setVersion(w.version());
      } else if (!w.applied() && w.previous() != null) {
        r.setVersion(w.previous().version());
      }
      out.add(r);
    }
    return out;
  }

  @Override
  public ScanPage scan(String db, String table, ScanRequest request) throws TException {
    checkAuthenticated();
    ScanRequest r = request == null ? new ScanRequest() : request;
    int limit = r.getLimit();
    if (limit < 1 || limit > MAX_SCAN_LIMIT) {
      throw ThriftErrors.invalid("scan limit must be from 1 to " + MAX_SCAN_LIMIT + ", was " + limit,
          ErrorCode.INVALID_ARGUMENT);
    }
    try {
      ScanPages.Page page = ScanPages.read(table(db, table), bytes(r.bufferForStartKey()),
          bytes(r.bufferForEndKey()), bytes(r.bufferForPrefix()), limit, r.isReverse(), r.isKeysOnly(),
          limits.pageBytes());
      List<KeyValue> entries = new ArrayList<>(page.items().size());
      for (ScanPages.Item item : page.items()) {
        KeyValue kv = new KeyValue(ByteBuffer.wrap(item.key()));
        if (item.value() != null) {
          kv.setValue(item.value());
        }
        kv.setVersion(item.version());
        entries.add(kv);
      }
      ScanPage out = new ScanPage(entries, page.more());
      if (page.nextKey() != null) {
        out.setNextStartKey(page.nextKey());
      }
      return out;
    } catch (KVStoreException e) {
      throw ThriftErrors.of(e);
    }
  }

  @Override
  public void createDb(String db, Map<String, String> properties) throws TException {
    checkAuthenticated();
    if (properties != null && !properties.isEmpty()) {
      throw ThriftErrors.invalid("databases take no properties, got " + properties.keySet(),
          ErrorCode.INVALID_ARGUMENT);
    }
    try {
      keyspace.store().createDB(db);
    } catch (KVStoreException e) {
      throw ThriftErrors.of(e);
    }
  }

  @Override
  public void dropDb(String db, boolean force) throws TException {
    checkAuthenticated();
    try {
      List<String> names = tables.tables(db);
      if (!force && !names.isEmpty()) {
        throw ThriftErrors.invalid("database '" + db + "' has " + names.size()
            + " tables; drop them first or pass force=true", ErrorCode.INVALID_ARGUMENT);
      }
      keyspace.store().dropDB(db);
      keyspace.forget(db, null);
    } catch (KVStoreException e) {
      throw ThriftErrors.of(e);
    }
  }

  @Override
  public List<String> listDbs() throws Unauthorized {
    checkAuthenticated();
    return tables.databases();
  }

  @Override
  public void createTable(TableSpec spec) throws TException {
    checkAuthenticated();
    require(spec != null, "spec");
    Properties properties = new Properties();
    if (spec.getProperties() != null) {
      properties.putAll(spec.getProperties());
    }
    String engine = spec.isSetEngine() ? spec.getEngine() : keyspace.defaultEngine();
    try {
      keyspace.store().createTable(spec.getDb(), spec.getTable(), engine, properties);
    } catch (KVStoreException e) {
      throw ThriftErrors.of(e);
    }
  }

  @Override
  public void dropTable(String db, String table) throws TException {
    checkAuthenticated();
    try {
      tables.drop(db, table);
    } catch (KVStoreException e) {
      throw ThriftErrors.of(e);
    }
  }

  @Override
  public TableSpec describeTable(String db, String table) throws TException {
    checkAuthenticated();
    try {
      TableInfo info = table(db, table).info();
      TableSpec spec = new TableSpec(info.database(), info.table());
      spec.setEngine(info.engine());
      spec.setProperties(new java.util.TreeMap<>(info.properties()));
      return spec;
    } catch (KVStoreException e) {
      throw ThriftErrors.of(e);
    }
  }

  @Override
  public List<String> listTables(String db) throws TException {
    checkAuthenticated();
    try {
      return tables.tables(db);
    } catch (KVStoreException e) {
      throw ThriftErrors.of(e);
    }
  }

  @Override
  public boolean expire(String db, String table, ByteBuffer key, long ttlMillis) throws TException {
    checkAuthenticated();
    byte[] k = key(key);
    try {
      Table t = table(db, table);
      if (ttlMillis <= 0) {
        return t.remove(k);
      }
      long now = now();
      return t.expireAt(k, ttlMillis > Long.MAX_VALUE - now ? Long.MAX_VALUE : now + ttlMillis);
    } catch (KVStoreException e) {
      throw ThriftErrors.of(e);
    }
  }

  @Override
  public boolean persist(String db, String table, ByteBuffer key) throws TException {
    checkAuthenticated();
    byte[] k = key(key);
    try {
      return table(db, table).persist(k);
    } catch (KVStoreException e) {
      throw ThriftErrors.of(e);
    }
  }

  // ---- helpers ----

  private void checkAuthenticated() throws Unauthorized {
    if (!authenticated) {
      throw new Unauthorized("authentication required: call authenticate(password) first");
    }
  }

  private Table table(String db, String table) throws InvalidArgument {
    require(db != null, "db");
    require(table != null, "table");
    return keyspace.table(db, table);
  }

  private long now() {
    return keyspace.store().options().clock().millis();
  }

  private static org.kvstore.thrift.NotFound missingKey(String db, String table) {
    return ThriftErrors.notFound("no such key in table '" + table + "' of database '" + db + "'",
        ErrorCode.KEY_NOT_FOUND);
  }

  private static PreconditionFailed preconditionFailed(Precondition expected, Entry current) {
    PreconditionFailed pf = new PreconditionFailed("precondition failed: expected " + expected + ", found "
        + (current == null ? "no key" : "version " + current.version()));
    if (current != null) {
      pf.setCurrentVersion(current.version());
    }
    return pf;
  }

  private org.kvstore.PutOptions putOptions(PutOptions o) throws InvalidArgument {
    org.kvstore.PutOptions po = org.kvstore.PutOptions.defaults();
    if (o == null) {
      return po;
    }
    if (o.isSetIfVersion() && o.isSetIfAbsent() && o.isIfAbsent()) {
      throw ThriftErrors.invalid("ifVersion and ifAbsent exclude each other", ErrorCode.INVALID_ARGUMENT);
    }
    if (o.isSetTtlMillis()) {
      if (o.getTtlMillis() < 1) {
        throw ThriftErrors.invalid("ttlMillis must be at least 1, was " + o.getTtlMillis(),
            ErrorCode.INVALID_ARGUMENT);
      }
      po = po.ttlMillis(o.getTtlMillis());
    }
    if (o.isSetIfVersion()) {
      po = po.ifVersion(o.getIfVersion());
    } else if (o.isSetIfAbsent() && o.isIfAbsent()) {
      po = po.ifAbsent();
    }
    return po;
  }

  private static Precondition removePrecondition(PutOptions o) throws InvalidArgument {
    if (o == null) {
      return Precondition.none();
    }
    if (o.isSetTtlMillis() || (o.isSetIfAbsent() && o.isIfAbsent())) {
      throw ThriftErrors.invalid("a remove takes only ifVersion", ErrorCode.INVALID_ARGUMENT);
    }
    return o.isSetIfVersion() ? Precondition.version(o.getIfVersion()) : Precondition.none();
  }

  private static byte[] key(ByteBuffer key) throws InvalidArgument {
    require(key != null, "key");
    return bytes(key);
  }

  private byte[] value(ByteBuffer value) throws InvalidArgument {
    require(value != null, "value");
    if (value.remaining() > limits.maxValueBytes()) {
      throw ThriftErrors.invalid("value of " + value.remaining() + " bytes exceeds the limit of "
          + limits.maxValueBytes() + " bytes", ErrorCode.TOO_LARGE);
    }
    return bytes(value);
  }

  /** A copy of the buffer's bytes (the generated code's buffers share the request's array), or null. */
  private static byte[] bytes(ByteBuffer b) {
    return b == null ? null : TBaseHelper.byteBufferToByteArray(b);
  }

  private static void require(boolean given, String what) throws InvalidArgument {
    if (!given) {
      throw ThriftErrors.invalid(what + " is required", ErrorCode.INVALID_ARGUMENT);
    }
  }
}
