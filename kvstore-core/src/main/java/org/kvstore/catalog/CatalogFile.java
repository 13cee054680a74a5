package org.kvstore.catalog;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import org.kvstore.io.FileSystem;
import org.kvstore.io.StorageFile;

/**
 * Reads and atomically replaces the catalog file {@code CATALOG} of a data directory. A replacement
 * writes {@code CATALOG.tmp}, fsyncs it, renames it over {@code CATALOG} and fsyncs the directory, so a
 * crash at any moment leaves the old or the new catalog, never a mix.
 *
 * <p>Thread safety: not thread-safe; the store serializes catalog changes.
 */
public final class CatalogFile {
  public static final String NAME = "CATALOG";
  static final String TEMP_NAME = "CATALOG.tmp";

  private final FileSystem fs;
  private final Path dir;

  public CatalogFile(FileSystem fs, Path dir) {
    this.fs = fs;
    this.dir = dir;
  }

  public Path path() {
    return dir.resolve(NAME);
  }

  /** The stored catalog, or an empty one when the directory has none yet. Removes a stale temp file. */
  public CatalogState load() throws IOException {
    Path tmp = dir.resolve(TEMP_NAME);
    if (fs.exists(tmp)) {
      fs.delete(tmp); // an interrupted replacement: CATALOG still holds the last durable state
    }
    Path p = path();
    if (!fs.exists(p)) {
      return CatalogState.empty();
    }
    try (StorageFile f = fs.open(p, FileSystem.OpenMode.READ)) {
      long size = f.size();
      if (size > 64L << 20) {
        throw new IOException(p + ": catalog file of " + size + " bytes is implausibly large");
      }
      ByteBuffer buf = ByteBuffer.allocate((int) size);
      f.readFully(buf, 0);
      return CatalogFormat.decode(p, buf.array());
    }
  }

  /** Durably replaces the stored catalog with {@code state}. */
  public void store(CatalogState state) throws IOException {
    Path tmp = dir.resolve(TEMP_NAME);
    fs.delete(tmp);
    try (StorageFile f = fs.open(tmp, FileSystem.OpenMode.CREATE_NEW)) {
      f.writeFully(ByteBuffer.wrap(CatalogFormat.encode(state)), 0);
      f.sync();
    }
    fs.rename(tmp, path());
    fs.syncDirectory(dir);
  }
}
