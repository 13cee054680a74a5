package org.kvstore.io;

import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * The production {@link FileSystem}: positional {@link FileChannel} I/O on the local disk. Never a
 * writable mmap, so a full disk is an {@link IOException}, not a SIGBUS.
 *
 * <p>Thread safety: stateless, thread-safe.
 */
public final class LocalFileSystem implements FileSystem {

  public static final LocalFileSystem INSTANCE = new LocalFileSystem();

  private LocalFileSystem() {}

  @Override
  public StorageFile open(Path path, OpenMode mode) throws IOException {
    FileChannel channel =
        switch (mode) {
          case READ -> FileChannel.open(path, StandardOpenOption.READ);
          case READ_WRITE -> FileChannel.open(
              path, StandardOpenOption.READ, StandardOpenOption.WRITE, StandardOpenOption.CREATE);
          case CREATE_NEW -> FileChannel.open(
              path, StandardOpenOption.READ, StandardOpenOption.WRITE, StandardOpenOption.CREATE_NEW);
        };
    return new ChannelFile(path, channel);
  }

  @Override
  public boolean exists(Path path) {
    return Files.exists(path);
  }

  @Override
  public void createDirectories(Path dir) throws IOException {
    Files.createDirectories(dir);
  }

  @Override
  public List<String> list(Path dir) throws IOException {
    if (!Files.isDirectory(dir)) {
      return List.of();
    }
    List<String> names = new ArrayList<>();
    try (DirectoryStream<Path> stream = Files.newDirectoryStream(dir)) {
      for (Path p : stream) {
        names.add(p.getFileName().toString());
      }
    }
    Collections.sort(names);
    return names;
  }

  @Override
  public long size(Path path) throws IOException {
    return Files.size(path);
  }

  @Override
  public long usableSpace(Path dir) throws IOException {
    Path p = dir.toAbsolutePath();
    while (p.getParent() != null && !Files.exists(p)) {
      p = p.getParent();
    }
    return Files.getFileStore(p).getUsableSpace();
  }

  @Override
  public void rename(Path source, Path target) throws IOException {
    Files.move(source, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
  }

  @Override
  public boolean delete(Path path) throws IOException {
    return Files.deleteIfExists(path);
  }

  @Override
  public void deleteRecursively(Path dir) throws IOException {
    if (!Files.exists(dir)) {
      return;
    }
    if (Files.isDirectory(dir)) {
      for (String name : list(dir)) {
        deleteRecursively(dir.resolve(name));
      }
    }
    Files.deleteIfExists(dir);
  }

  @Override
  public void createLink(Path link, Path existing) throws IOException {
    Files.createLink(link, existing);
  }

  @Override
  public void syncDirectory(Path dir) throws IOException {
    try (FileChannel ch = FileChannel.open(dir, StandardOpenOption.READ)) {
      ch.force(true);
    }
  }

  @Override
  public Closeable tryLock(Path lockFile) throws IOException {
    FileChannel ch =
        FileChannel.open(lockFile, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
    FileLock lock;
    try {
      lock = ch.tryLock();
    } catch (OverlappingFileLockException e) {
      lock = null; // held by another store in this JVM
    } catch (IOException e) {
      ch.close();
      throw e;
    }
    if (lock == null) {
      ch.close();
      return null;
    }
    FileLock held = lock;
    return () -> {
      try {
        held.release();
      } finally {
        ch.close();
      }
    };
  }

  /** A {@link StorageFile} over one {@link FileChannel}. Thread safety: as FileChannel. */
  private static final class ChannelFile implements StorageFile {
    private final Path path;
    private final FileChannel channel;

    ChannelFile(Path path, FileChannel channel) {
      this.path = path;
      this.channel = channel;
    }

    @Override
    public Path path() {
      return path;
    }

    @Override
    public int read(ByteBuffer dst, long position) throws IOException {
      return channel.read(dst, position);
    }

    @Override
    public int write(ByteBuffer src, long position) throws IOException {
      return channel.write(src, position);
    }

    @Override
    public long size() throws IOException {
      return channel.size();
    }

    @Override
    public void truncate(long size) throws IOException {
      channel.truncate(size);
    }

    @Override
    public void sync() throws IOException {
      channel.force(false); // fdatasync: data plus the metadata (size) needed to read it
    }

    @Override
    public void close() throws IOException {
      channel.close();
    }

    @Override
    public String toString() {
      return path.toString();
    }
  }
}
