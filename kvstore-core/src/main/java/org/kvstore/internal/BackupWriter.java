package org.kvstore.internal;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.Map;
import org.kvstore.InvalidArgumentException;
import org.kvstore.catalog.CatalogFile;
import org.kvstore.catalog.CatalogState;
import org.kvstore.io.FileSystem;
import org.kvstore.io.StorageFile;
import org.kvstore.wal.WriteAheadLog;

/**
 * Writes an online, consistent copy of a store that opens as a store: the catalog, each durable
 * table's persisted state (copied by its engine, hard links for immutable files), and the log from
 * the oldest live segment to its end at the moment of the copy. Opening the copy replays the log
 * above each table's copied state, so the backup holds every write acknowledged before the log was
 * copied. Tables of engines that are not durable are empty in the copy.
 *
 * <p>Thread safety: callers serialize backups with checkpoints (the checkpointer's monitor).
 */
final class BackupWriter {
  private BackupWriter() {}

  static void write(FileSystem fs, Path target, CatalogState catalog, StoreCatalog tables, WriteAheadLog wal)
      throws IOException {
    if (fs.exists(target) && !fs.list(target).isEmpty()) {
      throw new InvalidArgumentException("backup target", target + " exists and is not empty");
    }
    fs.createDirectories(target.resolve(StoreCatalog.TABLES_DIR));
    for (org.kvstore.catalog.TableDescriptor d : catalog.allTables()) {
      StoreTable t = tables.tableById(d.id());
      if (t == null) {
        throw new IOException("table " + d.qualifiedName() + " was dropped during the backup");
      }
      Path dir = target.resolve(StoreCatalog.TABLES_DIR).resolve(Long.toString(t.id()));
      fs.createDirectories(dir);
      if (t.durable()) {
        t.engine().backup(dir);
      }
      fs.syncDirectory(dir);
    }
    fs.syncDirectory(target.resolve(StoreCatalog.TABLES_DIR));
    // The log last: everything acknowledged before this point is in the copy.
    Path walTarget = target.resolve(wal.directory().getFileName());
    fs.createDirectories(walTarget);
    for (Map.Entry<Path, Long> segment : wal.snapshotForBackup().entrySet()) {
      copyPrefix(fs, segment.getKey(), walTarget.resolve(segment.getKey().getFileName()), segment.getValue());
    }
    fs.syncDirectory(walTarget);
    new CatalogFile(fs, target).store(catalog);
  }

  /** Copies the first {@code length} bytes of {@code from} to a new file {@code to}, synced. */
  static void copyPrefix(FileSystem fs, Path from, Path to, long length) throws IOException {
    try (StorageFile in = fs.open(from, FileSystem.OpenMode.READ);
        StorageFile out = fs.open(to, FileSystem.OpenMode.CREATE_NEW)) {
      ByteBuffer buf = ByteBuffer.allocate(1 << 20);
      long pos = 0;
      while (pos < length) {
        buf.clear();
        buf.limit((int) Math.min(buf.capacity(), length - pos));
        in.readFully(buf, pos);
        buf.flip();
        out.writeFully(buf, pos);
        pos += buf.limit();
      }
      out.sync();
    }
  }
}
