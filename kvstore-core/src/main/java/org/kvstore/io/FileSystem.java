package org.kvstore.io;

import java.io.Closeable;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;

/**
 * The one door through which every byte of storage I/O passes: the WAL, the catalog, engine page
 * files and SSTables. Production code never touches {@code FileChannel} or {@code Files} for store
 * data directly, so tests can substitute a fault-injecting implementation (failed fsync, full disk,
 * crash after the n-th write, loss of unsynced data) under every engine.
 *
 * <p>Paths are absolute or relative to the process working directory; the file system does not
 * confine them. Methods throw {@link IOException} with the path in the message; callers translate
 * once, at the store facade, into {@link org.kvstore.StorageIOException}.
 *
 * <p>Thread safety: implementations are thread-safe.
 */
public interface FileSystem {

  /** Opens (creating it if {@code mode} says so) a file for positional reads and writes. */
  StorageFile open(Path path, OpenMode mode) throws IOException;

  /** Whether a file or directory exists at {@code path}. */
  boolean exists(Path path);

  /** Creates the directory and its missing parents; a no-op when it exists. */
  void createDirectories(Path dir) throws IOException;

  /** Names of the entries of {@code dir}, sorted; empty when the directory does not exist. */
  List<String> list(Path dir) throws IOException;

  /** Size in bytes of the file at {@code path}. */
  long size(Path path) throws IOException;

  /**
   * Bytes this process may still write on the file system holding {@code dir} (its nearest existing
   * ancestor when {@code dir} does not exist): what the store watches, while a full disk refuses
   * writes, to retry as soon as space is freed. An estimate; a write may still fail.
   */
  long usableSpace(Path dir) throws IOException;

  /**
   * Renames {@code source} to {@code target}, atomically replacing {@code target} if it exists. The
   * rename is durable only after {@link #syncDirectory} of the target's directory.
   */
  void rename(Path source, Path target) throws IOException;

  /** Deletes a file or an empty directory; returns false when nothing was there. */
  boolean delete(Path path) throws IOException;

  /** Deletes a directory tree; a no-op when it does not exist. */
  void deleteRecursively(Path dir) throws IOException;

  /** Creates {@code link} as a hard link to {@code existing} (used by backups of immutable files). */
  void createLink(Path link, Path existing) throws IOException;

  /** Makes the entries of {@code dir} (creates, renames, deletes) durable: fsync on the directory. */
  void syncDirectory(Path dir) throws IOException;

  /**
   * Takes an exclusive, process-wide lock on {@code lockFile} (creating it), or returns {@code null}
   * when another holder has it. Closing the returned handle releases the lock.
   */
  Closeable tryLock(Path lockFile) throws IOException;

  /** How {@link #open} treats a missing or existing file. */
  enum OpenMode {
    /** Read only; the file must exist. */
    READ,
    /** Read and write; the file is created if missing, existing bytes are kept. */
    READ_WRITE,
    /** Read and write; the file must not exist yet. */
    CREATE_NEW,
  }
}
