package org.kvstore.bench.load.server;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * A real Redis server for comparison: {@code redis-server} from the PATH on a free loopback port,
 * in-memory only (no RDB snapshots, no AOF), its files in a scratch directory.
 *
 * <p>Thread safety: thread-safe.
 */
public final class RedisServerProcess implements ServerHandle {
  private final Process process;
  private final int port;

  private RedisServerProcess(Process process, int port) {
    this.process = process;
    this.port = port;
  }

  /** The executable {@code name} on the PATH, if there is one. */
  public static Optional<Path> onPath(String name) {
    String path = System.getenv("PATH");
    if (path == null) {
      return Optional.empty();
    }
    for (String dir : path.split(File.pathSeparator)) {
      Path p = Path.of(dir, name);
      if (Files.isExecutable(p)) {
        return Optional.of(p);
      }
    }
    return Optional.empty();
  }

  public static RedisServerProcess start(Path dir, Path log) throws IOException, InterruptedException {
    Path exe = onPath("redis-server").orElseThrow(() -> new IllegalStateException("redis-server is not on the PATH"));
    Files.createDirectories(dir);
    int port = FreePort.pick();
    Process p = new ProcessBuilder(List.of(exe.toString(), "--port", Integer.toString(port), "--bind", HOST,
        "--save", "", "--appendonly", "no", "--dir", dir.toString(), "--maxclients", "10000"))
        .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
    try {
      Readiness.awaitFirstAnswer(HOST, port, null, Duration.ofSeconds(30), p);
    } catch (RuntimeException | InterruptedException e) {
      p.destroyForcibly();
      throw e;
    }
    return new RedisServerProcess(p, port);
  }

  @Override
  public String name() {
    return "redis";
  }

  @Override
  public int respPort() {
    return port;
  }

  @Override
  public int httpPort() {
    return -1;
  }

  @Override
  public int thriftPort() {
    return -1;
  }

  @Override
  public void close() {
    process.destroy();
    try {
      if (!process.waitFor(30, TimeUnit.SECONDS)) {
        process.destroyForcibly();
      }
    } catch (InterruptedException e) {
      process.destroyForcibly();
      Thread.currentThread().interrupt();
    }
  }
}
