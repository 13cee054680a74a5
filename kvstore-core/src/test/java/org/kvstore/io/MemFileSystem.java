package org.kvstore.io;

import java.io.Closeable;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;

/**
 * An in-memory {@link FileSystem} that remembers what is durable, to simulate power loss (the
 * model of LevelDB's fault-injection test and pebble's crashable MemFS):
 *
 * <ul>
 *   <li>a file's bytes become durable at {@link StorageFile#sync()};
 *   <li>a directory's entries (creates, renames, deletes, links) become durable at
 *       {@link #syncDirectory}; directories themselves are durable once created;
 *   <li>{@link #crashClone(Random)} returns the file system as a power loss could leave it: only
 *       durable entries exist, and each file holds its durable bytes, sometimes followed by a random
 *       prefix of the bytes appended since (a partly written tail), never anything else.
 * </ul>
 *
 * <p>Thread safety: thread-safe (one monitor).
 */
public final class MemFileSystem implements FileSystem {
  private final Map<Path, Node> files = new HashMap<>();
  private final Map<Path, Map<String, Node>> durableEntries = new HashMap<>();
  private final Set<Path> dirs = new HashSet<>();
  private final Set<Path> locks = new HashSet<>();

  /** One file's bytes: the current ones and the durable ones. Guarded by the file system's monitor. */
  private static final class Node {
    byte[] data = new byte[0];
    int size;
    byte[] durable = new byte[0];

    Node copyForCrash(Random rnd) {
      Node n = new Node();
      byte[] base = durable;
      int keep = base.length;
      boolean appendedOnly = size >= base.length && Arrays.equals(data, 0, base.length, base, 0, base.length);
      if (appendedOnly && size > base.length && rnd.nextBoolean()) {
        keep = base.length + rnd.nextInt(size - base.length + 1); // part of the unsynced tail made it
        base = Arrays.copyOf(data, keep);
      }
      n.data = Arrays.copyOf(base, Math.max(16, keep));
      n.size = keep;
      n.durable = Arrays.copyOf(base, keep);
      return n;
    }
  }

  private static Path norm(Path p) {
    return p.toAbsolutePath().normalize();
  }

  /** A new file system holding what a power loss at this moment could leave. */
  public synchronized MemFileSystem crashClone(Random rnd) {
    MemFileSystem clone = new MemFileSystem();
    clone.dirs.addAll(dirs);
    Map<Node, Node> copies = new HashMap<>();
    for (Map.Entry<Path, Map<String, Node>> d : durableEntries.entrySet()) {
      Map<String, Node> entries = new HashMap<>();
      for (Map.Entry<String, Node> e : d.getValue().entrySet()) {
        Node copy = copies.computeIfAbsent(e.getValue(), n -> n.copyForCrash(rnd));
        entries.put(e.getKey(), copy);
        clone.files.put(d.getKey().resolve(e.getKey()), copy);
      }
      clone.durableEntries.put(d.getKey(), entries);
    }
    return clone;
  }

  @Override
  public synchronized StorageFile open(Path path, OpenMode mode) throws IOException {
    Path p = norm(path);
    Node n = files.get(p);
    switch (mode) {
      case READ -> {
        if (n == null) {
          throw new NoSuchFileException(p.toString());
        }
      }
      case READ_WRITE -> {
        if (n == null) {
          n = create(p);
        }
      }
      case CREATE_NEW -> {
        if (n != null) {
          throw new FileAlreadyExistsException(p.toString());
        }
        n = create(p);
      }
    }
    return new MemFile(p, n, mode == OpenMode.READ);
  }

  private Node create(Path p) throws IOException {
    if (!dirs.contains(p.getParent())) {
      throw new NoSuchFileException(p.getParent() + " (no such directory)");
    }
    Node n = new Node();
    files.put(p, n);
    return n;
  }

  @Override
  public synchronized boolean exists(Path path) {
    Path p = norm(path);
    return files.containsKey(p) || dirs.contains(p);
  }

  @Override
  public synchronized void createDirectories(Path dir) {
    for (Path p = norm(dir); p != null; p = p.getParent()) {
      if (dirs.add(p)) {
        durableEntries.putIfAbsent(p, new HashMap<>());
      }
    }
  }

  @Override
  public synchronized List<String> list(Path dir) {
    Path d = norm(dir);
    TreeSet<String> names = new TreeSet<>();
    for (Path p : files.keySet()) {
      if (d.equals(p.getParent())) {
        names.add(p.getFileName().toString());
      }
    }
    for (Path p : dirs) {
      if (d.equals(p.getParent())) {
        names.add(p.getFileName().toString());
      }
    }
    return new ArrayList<>(names);
  }

  @Override
  public synchronized long size(Path path) throws IOException {
    Node n = files.get(norm(path));
    if (n == null) {
      throw new NoSuchFileException(path.toString());
    }
    return n.size;
  }

  /** Memory has no fixed size here: always plenty. */
  @Override
  public long usableSpace(Path dir) {
    return Long.MAX_VALUE;
  }

  @Override
  public synchronized void rename(Path source, Path target) throws IOException {
    Node n = files.remove(norm(source));
    if (n == null) {
      throw new NoSuchFileException(source.toString());
    }
    files.put(norm(target), n);
  }

  @Override
  public synchronized boolean delete(Path path) {
    Path p = norm(path);
    if (files.remove(p) != null) {
      return true;
    }
    if (dirs.contains(p) && list(p).isEmpty()) {
      dirs.remove(p);
      durableEntries.remove(p);
      return true;
    }
    return false;
  }

  @Override
  public synchronized void deleteRecursively(Path dir) {
    Path d = norm(dir);
    files.keySet().removeIf(p -> p.startsWith(d));
    dirs.removeIf(p -> p.startsWith(d));
    durableEntries.keySet().removeIf(p -> p.startsWith(d));
  }

  @Override
  public synchronized void createLink(Path link, Path existing) throws IOException {
    Node n = files.get(norm(existing));
    if (n == null) {
      throw new NoSuchFileException(existing.toString());
    }
    if (files.containsKey(norm(link))) {
      throw new FileAlreadyExistsException(link.toString());
    }
    files.put(norm(link), n);
  }

  @Override
  public synchronized void syncDirectory(Path dir) throws IOException {
    Path d = norm(dir);
    if (!dirs.contains(d)) {
      throw new FileNotFoundException(d + " (no such directory)");
    }
    Map<String, Node> entries = new HashMap<>();
    for (Map.Entry<Path, Node> e : files.entrySet()) {
      if (d.equals(e.getKey().getParent())) {
        entries.put(e.getKey().getFileName().toString(), e.getValue());
      }
    }
    durableEntries.put(d, entries);
  }

  @Override
  public synchronized Closeable tryLock(Path lockFile) {
    Path p = norm(lockFile);
    if (!locks.add(p)) {
      return null;
    }
    return () -> {
      synchronized (MemFileSystem.this) {
        locks.remove(p);
      }
    };
  }

  /** An open in-memory file. */
  private final class MemFile implements StorageFile {
    private final Path path;
    private final Node node;
    private final boolean readOnly;

    MemFile(Path path, Node node, boolean readOnly) {
      this.path = path;
      this.node = node;
      this.readOnly = readOnly;
    }

    @Override
    public Path path() {
      return path;
    }

    @Override
    public int read(ByteBuffer dst, long position) {
      synchronized (MemFileSystem.this) {
        if (position >= node.size) {
          return dst.hasRemaining() ? -1 : 0;
        }
        int n = (int) Math.min(dst.remaining(), node.size - position);
        dst.put(node.data, (int) position, n);
        return n;
      }
    }

    @Override
    public int write(ByteBuffer src, long position) throws IOException {
      if (readOnly) {
        throw new IOException(path + " is open read-only");
      }
      synchronized (MemFileSystem.this) {
        int n = src.remaining();
        long end = position + n;
        if (end > Integer.MAX_VALUE - 16) {
          throw new IOException("file too large for the in-memory file system");
        }
        if (end > node.data.length) {
          node.data = Arrays.copyOf(node.data, (int) Math.max(end, node.data.length * 2L));
        }
        src.get(node.data, (int) position, n);
        node.size = (int) Math.max(node.size, end);
        return n;
      }
    }

    @Override
    public long size() {
      synchronized (MemFileSystem.this) {
        return node.size;
      }
    }

    @Override
    public void truncate(long size) {
      synchronized (MemFileSystem.this) {
        if (size < node.size) {
          Arrays.fill(node.data, (int) size, node.size, (byte) 0);
          node.size = (int) size;
        }
      }
    }

    @Override
    public void sync() {
      synchronized (MemFileSystem.this) {
        node.durable = Arrays.copyOf(node.data, node.size);
      }
    }

    @Override
    public void close() {}
  }
}
