/*
 * The KVStore Thrift interface (docs/thrift.md explains it; the server is
 * org.kvstore.server.thrift). The Java in kvstore-server/src/main/java/org/kvstore/thrift is
 * generated from this file by generate.sh beside it; a test fails when the two differ.
 *
 * Evolution rules: never renumber or reuse a field id, an exception id or an enum value; new
 * fields are optional; new methods are added, signatures never change; no oneway methods.
 */
namespace java org.kvstore.thrift
namespace py kvstore

/** Why a NotFound or InvalidArgument was raised. DO NOT RENUMBER. */
enum ErrorCode {
  DB_NOT_FOUND = 1,
  TABLE_NOT_FOUND = 2,
  KEY_NOT_FOUND = 3,
  ALREADY_EXISTS = 4,
  INVALID_ARGUMENT = 5,
  TOO_LARGE = 6,
  PRECONDITION_FAILED = 7,
  UNAVAILABLE = 8
}

/** The database, the table or the key does not exist; code says which. */
exception NotFound           { 1: string message, 2: ErrorCode code }
/** The database or table to create exists already. */
exception AlreadyExists      { 1: string message }
/** A malformed request: a bad name, an empty or too long key, a value over the limit (TOO_LARGE). */
exception InvalidArgument    { 1: string message, 2: ErrorCode code }
/** ifVersion or ifAbsent did not hold; currentVersion is the key's version, absent when no key. */
exception PreconditionFailed { 1: string message, 2: optional i64 currentVersion }
/** The store cannot serve the request now (closed, failed, read-only). */
exception Unavailable        { 1: string message }
/** The server has a password and this connection has not called authenticate() with it. */
exception Unauthorized       { 1: string message }

/** DO NOT RENUMBER. */
enum MutationType { PUT = 1, DELETE = 2 }

struct KeyValue    { 1: required binary key, 2: optional binary value, 3: optional i64 version }
struct GetResult   { 1: required bool found, 2: optional binary value, 3: optional i64 version }
/**
 * ifVersion: write only if the key is at this version. ifAbsent: write only if the key is absent.
 * ttlMillis (> 0): the key expires this many milliseconds after the write; unset: no expiry.
 */
struct PutOptions  { 1: optional i64 ifVersion, 2: optional bool ifAbsent, 3: optional i64 ttlMillis }
struct Mutation    { 1: required MutationType type, 2: required binary key, 3: optional binary value,
                     4: optional PutOptions options }
struct MutationResult { 1: required bool applied, 2: optional i64 version }
/**
 * startKey inclusive, endKey exclusive (unset: open), prefix narrows both; keys in unsigned byte
 * order; limit from 1 to 1000 entries per page (the page is also cut at a byte cap).
 */
struct ScanRequest { 1: optional binary startKey, 2: optional binary endKey, 3: optional binary prefix,
                     4: optional i32 limit = 100, 5: optional bool reverse = false,
                     6: optional bool keysOnly = false }
/** The next page starts at nextStartKey (set while more is true). */
struct ScanPage    { 1: required list<KeyValue> entries, 2: optional binary nextStartKey, 3: required bool more }
struct TableSpec   { 1: required string db, 2: required string table, 3: optional string engine,
                     4: optional map<string, string> properties }
/** A value with its version and, when it expires, the milliseconds it has left. */
struct EntryMeta   { 1: required binary value, 2: required i64 version, 3: optional i64 ttlMillis }

service KvService {
  string ping() throws (1: Unauthorized ua),

  binary get(1: string db, 2: string table, 3: binary key)
      throws (1: NotFound nf, 2: InvalidArgument ia, 3: Unavailable u, 4: Unauthorized ua),
  list<GetResult> multiGet(1: string db, 2: string table, 3: list<binary> keys)
      throws (1: NotFound nf, 2: InvalidArgument ia, 3: Unavailable u, 4: Unauthorized ua),
  i64 put(1: string db, 2: string table, 3: binary key, 4: binary value, 5: PutOptions options)
      throws (1: NotFound nf, 2: InvalidArgument ia, 3: PreconditionFailed pf, 4: Unavailable u,
              5: Unauthorized ua),
  bool remove(1: string db, 2: string table, 3: binary key, 4: PutOptions options)
      throws (1: NotFound nf, 2: InvalidArgument ia, 3: PreconditionFailed pf, 4: Unavailable u,
              5: Unauthorized ua),
  list<MutationResult> batch(1: string db, 2: string table, 3: list<Mutation> ops, 4: bool atomic)
      throws (1: NotFound nf, 2: InvalidArgument ia, 3: PreconditionFailed pf, 4: Unavailable u,
              5: Unauthorized ua),
  ScanPage scan(1: string db, 2: string table, 3: ScanRequest request)
      throws (1: NotFound nf, 2: InvalidArgument ia, 3: Unavailable u, 4: Unauthorized ua),

  void createDb(1: string db, 2: map<string, string> properties)
      throws (1: AlreadyExists ae, 2: InvalidArgument ia, 3: Unauthorized ua),
  void dropDb(1: string db, 2: bool force)
      throws (1: NotFound nf, 2: InvalidArgument ia, 3: Unauthorized ua),
  list<string> listDbs() throws (1: Unauthorized ua),
  void createTable(1: TableSpec spec)
      throws (1: NotFound nf, 2: AlreadyExists ae, 3: InvalidArgument ia, 4: Unauthorized ua),
  void dropTable(1: string db, 2: string table) throws (1: NotFound nf, 2: Unauthorized ua),
  TableSpec describeTable(1: string db, 2: string table) throws (1: NotFound nf, 2: Unauthorized ua),
  list<string> listTables(1: string db) throws (1: NotFound nf, 2: Unauthorized ua),

  EntryMeta getWithMeta(1: string db, 2: string table, 3: binary key)
      throws (1: NotFound nf, 2: InvalidArgument ia, 3: Unavailable u, 4: Unauthorized ua),
  /** Sets the key to expire ttlMillis from now (<= 0 removes it); false when the key is absent. */
  bool expire(1: string db, 2: string table, 3: binary key, 4: i64 ttlMillis)
      throws (1: NotFound nf, 2: InvalidArgument ia, 3: Unavailable u, 4: Unauthorized ua),
  /** Drops the key's expiry; false when the key is absent or has none. */
  bool persist(1: string db, 2: string table, 3: binary key)
      throws (1: NotFound nf, 2: InvalidArgument ia, 3: Unavailable u, 4: Unauthorized ua),
  /** Required once per connection, before any other call, when the server has a password. */
  void authenticate(1: string password) throws (1: Unauthorized ua),
}
