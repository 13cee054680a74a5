package org.kvstore.testkit;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentSkipListMap;
import org.kvstore.CorruptionException;
import org.kvstore.Cursor;
import org.kvstore.Entry;
import org.kvstore.codec.Crc32c;
import org.kvstore.engine.memory.MapRangeCursor;
import org.kvstore.io.FileSystem;
import org.kvstore.io.StorageFile;
import org.kvstore.spi.EngineContext;
import org.kvstore.spi.EngineStats;
import org.kvstore.spi.EngineTable;
import org.kvstore.spi.Mutation;
import org.kvstore.spi.PropertySpec;
import org.kvstore.spi.TableEngine;

/**
 * A minimal durable engine for the core's own durability tests: a skip list in memory, persisted
 * by writing a whole snapshot file ({@code snapshot}: magic, LSN, entries, CRC32C) with an atomic
 * replace at every flush. It lets the log, checkpoints, backups and crash recovery be tested without
 * the real engines, and serves as a reference for the persistence protocol.
 *
 * <p>Thread safety: stateless; its tables are thread-safe (flushes serialized by a monitor).
 */
public final class SnapshotTestEngine implements TableEngine {
  public static final String NAME = "test-snapshot";

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public boolean durable() {
    return true;
  }

  @Override
  public List<PropertySpec<?>> properties() {
    return List.of();
  }

  @Override
  public EngineTable open(EngineContext context) throws IOException {
    return new SnapshotTable(context);
  }

  private static final class SnapshotTable implements EngineTable {
    private static final long MAGIC = 0x4b5653534e415032L; // "KVSSNAP2"
    private final EngineContext ctx;
    private final FileSystem fs;
    private final Path file;
    private final ConcurrentSkipListMap<byte[], Entry> map = new ConcurrentSkipListMap<>(Arrays::compareUnsigned);
    private volatile long persistedLsn;

    SnapshotTable(EngineContext ctx) throws IOException {
      this.ctx = ctx;
      this.fs = ctx.fileSystem();
      this.file = ctx.directory().resolve("snapshot");
      if (fs.exists(file)) {
        load();
      }
    }

    private void load() throws IOException {
      try (StorageFile f = fs.open(file, FileSystem.OpenMode.READ)) {
        ByteBuffer b = ByteBuffer.allocate((int) f.size()).order(ByteOrder.LITTLE_ENDIAN);
        f.readFully(b, 0);
        b.flip();
        if (b.remaining() < 24 || b.getLong(0) != MAGIC) {
          throw new CorruptionException(file, 0, "not a snapshot file");
        }
        int stored = b.getInt(b.limit() - 4);
        if (Crc32c.of(b.array(), 0, b.limit() - 4) != stored) {
          throw new CorruptionException(file, b.limit() - 4, "snapshot checksum mismatch");
        }
        b.getLong();
        persistedLsn = b.getLong();
        long count = b.getInt();
        for (long i = 0; i < count; i++) {
          byte[] k = new byte[b.getInt()];
          b.get(k);
          byte[] v = new byte[b.getInt()];
          b.get(v);
          map.put(k, new Entry(v, b.getLong(), b.getLong()));
        }
      }
    }

    @Override
    public byte[] get(byte[] key) {
      Entry e = getEntry(key);
      return e == null ? null : e.value();
    }

    @Override
    public Entry getEntry(byte[] key) {
      Entry e = map.get(key);
      if (e == null || Entry.isExpired(e.expiresAt(), ctx.clock().millis())) {
        return null;
      }
      return new Entry(e.value().clone(), e.version(), e.expiresAt());
    }

    @Override
    public void put(byte[] key, byte[] value, long expiresAt, long lsn) {
      map.put(key, new Entry(value, lsn, expiresAt));
    }

    @Override
    public void remove(byte[] key, long lsn) {
      map.remove(key);
    }

    @Override
    public void apply(List<Mutation> batch, long lsn) {
      for (Mutation m : batch) {
        if (m.isRemove()) {
          map.remove(m.key());
        } else {
          map.put(m.key(), new Entry(m.value(), lsn, m.expiresAt()));
        }
      }
    }

    @Override
    public Cursor newCursor(byte[] from, byte[] to) {
      return MapRangeCursor.over(map, from, to, ctx.clock());
    }

    @Override
    public Cursor newCursorIncludingExpired(byte[] from, byte[] to) {
      return MapRangeCursor.over(map, from, to, null);
    }

    @Override
    public synchronized long flush() throws IOException {
      long lsn = ctx.appliedLsn().getAsLong();
      long size = 8 + 8 + 4 + 4;
      for (Map.Entry<byte[], Entry> e : map.entrySet()) {
        size += 24 + e.getKey().length + e.getValue().value().length;
      }
      ByteBuffer b = ByteBuffer.allocate((int) size + (1 << 16)).order(ByteOrder.LITTLE_ENDIAN);
      b.putLong(MAGIC).putLong(lsn);
      int countPos = b.position();
      b.putInt(0);
      int count = 0;
      for (Map.Entry<byte[], Entry> e : map.entrySet()) {
        byte[] value = e.getValue().value();
        if (b.remaining() < 24 + e.getKey().length + value.length + 4) {
          ByteBuffer bigger = ByteBuffer.allocate(b.capacity() * 2 + value.length).order(ByteOrder.LITTLE_ENDIAN);
          b.flip();
          bigger.put(b);
          b = bigger;
        }
        b.putInt(e.getKey().length).put(e.getKey()).putInt(value.length).put(value)
            .putLong(e.getValue().version()).putLong(e.getValue().expiresAt());
        count++;
      }
      b.putInt(countPos, count);
      b.putInt(Crc32c.of(b.array(), 0, b.position()));
      b.flip();
      Path tmp = ctx.directory().resolve("snapshot.tmp");
      fs.delete(tmp);
      try (StorageFile f = fs.open(tmp, FileSystem.OpenMode.CREATE_NEW)) {
        f.writeFully(b, 0);
        f.sync();
      }
      fs.rename(tmp, file);
      fs.syncDirectory(ctx.directory());
      persistedLsn = lsn;
      return lsn;
    }

    @Override
    public long persistedLsn() {
      return persistedLsn;
    }

    @Override
    public EngineStats stats() throws IOException {
      return new EngineStats(map.size(), fs.exists(file) ? fs.size(file) : 0, Map.of());
    }

    @Override
    public synchronized void backup(Path target) throws IOException {
      fs.createLink(target.resolve("snapshot"), file); // replaced, never modified in place
    }

    @Override
    public void close() {}
  }
}
