package org.kvstore.server.warmup;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.kvstore.KVStore;
import org.kvstore.KVStoreException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The warm-up's scratch store directory: {@code kvstore-warmup-<pid>-<random>} in a temporary
 * directory, never in the data directory, deleted when the warm-up ends. A process killed during
 * its warm-up leaves its directory behind; the next warm-up on the machine deletes every such
 * directory whose process is no longer running (the pid in the name).
 *
 * <p>Thread safety: confined.
 */
final class ScratchDirectory implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(ScratchDirectory.class);
  static final String PREFIX = "kvstore-warmup-";
  private static final Pattern NAME = Pattern.compile(Pattern.quote(PREFIX) + "(\\d+)-.*");

  private final Path path;

  private ScratchDirectory(Path path) {
    this.path = path;
  }

  /**
   * Makes a new scratch directory in {@code parent}, first deleting those left by dead processes.
   *
   * @throws WarmupException if it cannot be made
   */
  static ScratchDirectory create(Path parent) {
    sweepStale(parent);
    try {
      return new ScratchDirectory(
          Files.createTempDirectory(parent, PREFIX + ProcessHandle.current().pid() + "-"));
    } catch (IOException | UnsupportedOperationException e) {
      throw new WarmupException("cannot make a scratch directory in " + parent + ": " + e, e);
    }
  }

  Path path() {
    return path;
  }

  /**
   * Deletes the directory and everything in it.
   *
   * @throws WarmupException if it cannot
   */
  @Override
  public void close() {
    delete(path);
  }

  /** Deletes the scratch directories in {@code parent} whose process has ended. */
  static void sweepStale(Path parent) {
    if (!Files.isDirectory(parent)) {
      return;
    }
    try (DirectoryStream<Path> dirs = Files.newDirectoryStream(parent, PREFIX + "*")) {
      for (Path dir : dirs) {
        Matcher m = NAME.matcher(dir.getFileName().toString());
        if (m.matches() && Files.isDirectory(dir) && !running(m.group(1))) {
          LOG.info("warm-up: deleting {}, left by process {} which has ended", dir, m.group(1));
          delete(dir);
        }
      }
    } catch (IOException | WarmupException e) {
      LOG.warn("warm-up: cannot delete old scratch directories in {}: {}", parent, e.toString());
    }
  }

  private static boolean running(String pid) {
    try {
      return ProcessHandle.of(Long.parseLong(pid)).map(ProcessHandle::isAlive).orElse(false);
    } catch (NumberFormatException e) {
      return true; // not a pid this code wrote: leave it alone
    }
  }

  private static void delete(Path dir) {
    if (!Files.exists(dir)) {
      return;
    }
    try {
      KVStore.destroy(dir);
    } catch (KVStoreException e) {
      throw new WarmupException("cannot delete the warm-up's scratch directory " + dir + ": " + e, e);
    }
  }
}
