package org.kvstore.server.command;

import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Consumer;
import org.kvstore.Cursor;
import org.kvstore.Entry;
import org.kvstore.Precondition;
import org.kvstore.PutOptions;
import org.kvstore.Table;
import org.kvstore.WriteBatch;

/**
 * What the keyspace commands do to a table, for every protocol: KEYS, SCAN, TYPE, RENAME,
 * RENAMENX, RANDOMKEY, COPY, TOUCH. Tables are ordered, so KEYS and SCAN with a pattern that starts with literal
 * bytes only read that key range; SCAN returns keys in order and its cursor names the next key to
 * read ({@link ScanCursors}).
 *
 * <p>Errors: {@link CommandException} for a refused command (an unknown cursor, RENAME of a missing
 * key); the store's exceptions pass through.
 *
 * <p>Thread safety: thread-safe.
 */
public final class KeyspaceCommands {
  /** Most keys one SCAN call reads. */
  static final int MAX_SCAN_COUNT = 100_000;

  private final ScanCursors cursors = new ScanCursors();

  /**
   * KEYS: hands the keys matching {@code pattern} to {@code sink}, in order, as the cursor reads
   * them (a reply may be too large to hold as a list). An exception from {@code sink} stops the scan.
   */
  public void keys(Table t, GlobPattern pattern, Consumer<byte[]> sink) {
    byte[] prefix = pattern.literalPrefix();
    byte[] from = prefix.length == 0 ? null : prefix;
    byte[] to = prefix.length == 0 ? null : GlobPattern.prefixEnd(prefix);
    try (Cursor c = t.scan(from, to, 0)) {
      while (c.next()) {
        byte[] k = c.key();
        if (pattern.matches(k)) {
          sink.accept(k);
        }
      }
    }
  }

  /**
   * SCAN: reads up to {@code count} keys from where {@code cursor} left off (0: from the start),
   * hands those matching {@code pattern} (null: all) to {@code sink}, and returns the cursor to
   * continue with (0: the iteration is done); with {@code typeMatches} false it hands none (every
   * value is a string: a TYPE filter other than string matches nothing, but the cursor moves on).
   *
   * @throws CommandException {@code ERR invalid cursor} for an unknown or evicted cursor
   */
  public long scan(Table table, long cursor, GlobPattern pattern, long count, boolean typeMatches,
      Consumer<byte[]> sink) {
    // Inside EXEC the table is the transaction's view; a cursor names the table itself, so an
    // iteration may go on outside the transaction.
    Table cursorTable = table instanceof TransactionView view ? view.base() : table;
    byte[] from = null;
    if (cursor != 0) {
      ScanCursors.Position pos = cursors.get(cursor);
      if (pos == null || pos.table() != cursorTable) {
        throw new CommandException("ERR invalid cursor");
      }
      from = pos.resumeKey();
    }
    byte[] to = null;
    if (pattern != null && pattern.literalPrefix().length > 0) {
      byte[] prefix = pattern.literalPrefix();
      if (from == null || Arrays.compareUnsigned(from, prefix) < 0) {
        from = prefix;
      }
      to = GlobPattern.prefixEnd(prefix);
    }
    int limit = (int) Math.min(count, MAX_SCAN_COUNT);
    byte[] next = null;
    int seen = 0;
    try (Cursor c = table.scan(from, to, limit + 1)) {
      while (c.next()) {
        byte[] k = c.key();
        if (seen++ == limit) {
          next = k;
          break;
        }
        if (typeMatches && (pattern == null || pattern.matches(k))) {
          sink.accept(k);
        }
      }
    }
    return next == null ? 0 : cursors.register(cursorTable, next);
  }

  /** TYPE: {@code "string"} when {@code key} exists, else {@code "none"}. */
  public String type(Table t, byte[] key) {
    return t.getReadOnly(key) == null ? "none" : "string";
  }

  /**
   * RENAME (and with {@code onlyIfAbsent}, RENAMENX): moves the value of {@code src} to {@code dst},
   * with its expiry (the target's own expiry is replaced), in one atomic update; returns whether it
   * moved (RENAMENX leaves an existing target).
   *
   * @throws CommandException {@code ERR no such key} when {@code src} is absent
   */
  public boolean rename(Table t, byte[] src, byte[] dst, boolean onlyIfAbsent) {
    boolean[] missing = new boolean[1];
    boolean[] moved = new boolean[1];
    t.updateEntries(List.of(src, dst), cur -> {
      if (cur[0] == null) {
        missing[0] = true;
        return null;
      }
      if (onlyIfAbsent && cur[1] != null) {
        return null;
      }
      moved[0] = true;
      if (Arrays.equals(src, dst)) {
        return null;
      }
      PutOptions expiry = cur[0].hasExpiry()
          ? PutOptions.defaults().expireAt(cur[0].expiresAt()) : PutOptions.defaults();
      return new WriteBatch().remove(src).putOwned(dst, cur[0].value(), expiry);
    });
    if (missing[0]) {
      throw new CommandException("ERR no such key");
    }
    return moved[0];
  }

  /**
   * COPY: puts the value of {@code srcKey} in {@code src} under {@code dstKey} in {@code dst} with
   * the source's expiry (the same absolute time, or none); returns whether it copied: false when the
   * source is absent or expired, or when the destination exists and {@code replace} is false.
   *
   * <p>Within one table the read of both keys and the write happen under both keys' locks
   * ({@link Table#updateEntries}). Across tables the source is read first, then the destination is
   * written atomically on its own: without {@code replace} only if it is still absent
   * ({@link Precondition#absent()}), so a concurrent writer of the destination is never overwritten.
   *
   * @throws CommandException {@code ERR source and destination objects are the same} for the same
   *     key in the same table
   */
  public boolean copy(Table src, byte[] srcKey, Table dst, byte[] dstKey, boolean replace) {
    if (sameTable(src, dst)) {
      if (Arrays.equals(srcKey, dstKey)) {
        throw new CommandException("ERR source and destination objects are the same");
      }
      boolean[] copied = new boolean[1];
      src.updateEntries(List.of(srcKey, dstKey), cur -> {
        if (cur[0] == null || (cur[1] != null && !replace)) {
          return null;
        }
        copied[0] = true;
        return new WriteBatch().put(dstKey, cur[0].value(), expiryOf(cur[0]));
      });
      return copied[0];
    }
    Entry source = src.getEntry(srcKey);
    if (source == null) {
      return false;
    }
    PutOptions options = expiryOf(source);
    if (!replace) {
      options = options.when(Precondition.absent());
    }
    return dst.put(dstKey, source.value(), options).applied();
  }

  /** Whether {@code a} and {@code b} are handles of the same table (or a transaction's view of it). */
  public static boolean sameTable(Table a, Table b) {
    return a == b || (a.database().equals(b.database()) && a.name().equals(b.name()));
  }

  /** A put that gives the written entry {@code e}'s expiry. */
  private static PutOptions expiryOf(Entry e) {
    return e.hasExpiry() ? PutOptions.defaults().expireAt(e.expiresAt()) : PutOptions.defaults();
  }

  /**
   * TOUCH: how many of {@code keys} exist (a key named twice counts twice). The store keeps no
   * access times, so touching changes nothing.
   */
  public long touch(Table t, List<byte[]> keys) {
    long n = 0;
    for (byte[] key : keys) {
      if (t.getReadOnly(key) != null) {
        n++;
      }
    }
    return n;
  }

  /** OBJECT ENCODING: {@link StringEncoding#of} the value of {@code key}, or null when absent. */
  public String objectEncoding(Table t, byte[] key) {
    byte[] v = t.getReadOnly(key);
    return v == null ? null : StringEncoding.of(v);
  }

  /** OBJECT REFCOUNT: {@link StringEncoding#refCount} of the value of {@code key}, or -1 when absent. */
  public long objectRefCount(Table t, byte[] key) {
    byte[] v = t.getReadOnly(key);
    return v == null ? -1 : StringEncoding.refCount(v);
  }

  /** OBJECT IDLETIME / FREQ: whether {@code key} exists (they report no tracked figure). */
  public boolean exists(Table t, byte[] key) {
    return t.getReadOnly(key) != null;
  }

  /** RANDOMKEY: some key of the table, or null when it is empty. */
  public byte[] randomKey(Table t) {
    byte[] probe = new byte[8];
    ThreadLocalRandom.current().nextBytes(probe);
    try (Cursor c = t.scan(probe, null, 1)) {
      if (c.next()) {
        return c.key();
      }
    }
    try (Cursor c = t.scan(null, null, 1)) {
      return c.next() ? c.key() : null;
    }
  }
}
