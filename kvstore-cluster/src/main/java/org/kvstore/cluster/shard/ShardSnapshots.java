package org.kvstore.cluster.shard;

import java.io.IOException;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;
import org.apache.ratis.server.storage.FileInfo;
import org.kvstore.io.FileSystem;

/**
 * A shard replica's snapshots on disk (docs/format/shard-snapshot.md): under the state machine's
 * snapshot directory, one directory {@code snapshot-<term>-<index>} per snapshot, holding the
 * (term, index) stamp ({@link ShardSnapshotFile}) and, in {@code tables/<table>/}, a copy of each of
 * the shard's tables at that index ({@link org.kvstore.KVStore#backupReplicatedTable}: the LSM
 * engine hard-links its immutable files, so a snapshot costs little until compactions replace the
 * files it links).
 *
 * <p>A snapshot is written into {@code .tmp-snapshot-<term>-<index>}, synced, and renamed into place:
 * a crash leaves either no snapshot or a complete one (leftover temporary directories are deleted by
 * {@link #removeAllBut}). Ratis sends the newest snapshot's files to a follower that needs entries the
 * leader's log no longer has, and replaces the follower's whole snapshot directory with the files it
 * received, so the follower then finds the leader's snapshot here.
 *
 * <p>Every create, write, sync, rename, delete and listing goes through the store's {@link
 * FileSystem}, as the tables' copies do, so tests can inject faults. Ratis reads the files it sends
 * and writes the files it receives with its own I/O, so the file system must be the local disk's, or
 * one over it. What the file system has no method for is read with {@code java.nio.file.Files}:
 * whether an entry is a directory, and the tree of a snapshot's files that Ratis sends ({@link
 * #files}).
 *
 * <p>Thread safety: not thread-safe; the state machine calls it from Ratis' apply thread (snapshots,
 * reinitialization) and from its initialization, which do not run concurrently.
 */
final class ShardSnapshots {
  /** The snapshot directory's name under the state machine directory. */
  static final String DIR = "snapshots";
  static final String TABLES = "tables";
  private static final String PREFIX = "snapshot-";
  private static final String TMP = ".tmp-";

  /** A complete snapshot: its stamp and its directory. */
  record Taken(ShardSnapshotFile.Stamp stamp, Path dir) {
    /** The copy of table {@code name} in this snapshot. */
    Path table(String name) {
      return dir.resolve(TABLES).resolve(name);
    }
  }

  private final FileSystem fs;
  private final Path root;

  /**
   * @param fs the store's file system
   * @param root the snapshot directory
   */
  ShardSnapshots(FileSystem fs, Path root) {
    this.fs = fs;
    this.root = root;
  }

  Path root() {
    return root;
  }

  /**
   * The newest complete snapshot, or {@code null}. A damaged stamp is an error, not a reason to fall
   * back to an older snapshot: the tables may already depend on the damaged one.
   *
   * @throws org.kvstore.CorruptionException naming the stamp file if it is damaged
   */
  Taken latest() throws IOException {
    Taken best = null;
    for (Path d : snapshotDirs()) {
      ShardSnapshotFile.Stamp stamp = ShardSnapshotFile.read(fs, d);
      if (stamp == null) {
        throw new IOException("snapshot directory " + d + " has no stamp " + ShardSnapshotFile.NAME);
      }
      if (best == null || stamp.index() > best.stamp().index()) {
        best = new Taken(stamp, d);
      }
    }
    return best;
  }

  /** A new, empty temporary directory for the snapshot at {@code stamp}. */
  Path begin(ShardSnapshotFile.Stamp stamp) throws IOException {
    Path tmp = root.resolve(TMP + name(stamp));
    fs.deleteRecursively(tmp);
    fs.createDirectories(tmp.resolve(TABLES));
    return tmp;
  }

  /** Stamps the temporary directory {@code tmp}, makes it durable and renames it into place. */
  Taken commit(Path tmp, ShardSnapshotFile.Stamp stamp) throws IOException {
    ShardSnapshotFile.write(fs, tmp, stamp);
    Path tables = tmp.resolve(TABLES);
    for (String table : fs.list(tables)) {
      fs.syncDirectory(tables.resolve(table));
    }
    fs.syncDirectory(tables);
    fs.syncDirectory(tmp);
    Path target = root.resolve(name(stamp));
    fs.deleteRecursively(target); // a snapshot at the same position taken again (after an install)
    try {
      fs.rename(tmp, target);
    } catch (AtomicMoveNotSupportedException e) {
      throw new IOException("the file system of " + root + " cannot rename atomically", e);
    }
    fs.syncDirectory(root);
    return new Taken(stamp, target);
  }

  /** Deletes every snapshot but the newest {@code keep} and every temporary directory. */
  void removeAllBut(int keep) throws IOException {
    List<Path> dirs = new ArrayList<>(snapshotDirs());
    dirs.sort(Comparator.comparingLong(ShardSnapshots::indexOf).reversed());
    for (int i = keep; i < dirs.size(); i++) {
      fs.deleteRecursively(dirs.get(i));
    }
    for (String name : fs.list(root)) {
      if (name.startsWith(TMP)) {
        fs.deleteRecursively(root.resolve(name));
      }
    }
  }

  /** Every file of snapshot {@code taken}, for Ratis to send (MD5 digests computed as it reads). */
  static List<FileInfo> files(Taken taken) throws IOException {
    try (Stream<Path> walk = Files.walk(taken.dir())) {
      List<FileInfo> out = new ArrayList<>();
      for (Path p : (Iterable<Path>) walk.filter(Files::isRegularFile).sorted()::iterator) {
        out.add(new FileInfo(p.toAbsolutePath(), null));
      }
      return out;
    }
  }

  private List<Path> snapshotDirs() throws IOException {
    List<Path> out = new ArrayList<>();
    for (String name : fs.list(root)) {
      Path d = root.resolve(name);
      if (name.startsWith(PREFIX) && Files.isDirectory(d)) {
        out.add(d);
      }
    }
    return out;
  }

  private static String name(ShardSnapshotFile.Stamp stamp) {
    return PREFIX + stamp.term() + "-" + stamp.index();
  }

  private static long indexOf(Path snapshotDir) {
    String n = snapshotDir.getFileName().toString();
    try {
      return Long.parseLong(n.substring(n.lastIndexOf('-') + 1));
    } catch (NumberFormatException e) {
      return -1; // not one of ours: the oldest, so removed first
    }
  }
}
