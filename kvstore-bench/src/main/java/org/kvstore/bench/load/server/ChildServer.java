package org.kvstore.bench.load.server;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import org.kvstore.Durability;

/**
 * kvstore-server as a child JVM (this JVM's class path, {@code org.kvstore.server.ServerMain}) on
 * free loopback ports, RESP, HTTP and Thrift on: a server with its own heap and threads, which can
 * be stopped cleanly (SIGTERM) or killed (SIGKILL, as kill -9). Its output goes to {@code log}.
 *
 * <p>Thread safety: thread-safe.
 */
public final class ChildServer implements ServerHandle {
  private static final Duration START_TIMEOUT = Duration.ofMinutes(10);
  private final Process process;
  private final int resp;
  private final int http;
  private final int thrift;
  private final Duration startup;

  private ChildServer(Process process, int resp, int http, int thrift, Duration startup) {
    this.process = process;
    this.resp = resp;
    this.http = http;
    this.thrift = thrift;
    this.startup = startup;
  }

  /**
   * Starts the server and waits until {@code GET readyKey} over RESP returns a value (or, when
   * {@code readyKey} is null, until it answers at all); {@link #startup} is the time from the spawn.
   */
  public static ChildServer start(Path dataDir, Durability durability, String engine, String heap, Path log,
      byte[] readyKey) throws IOException, InterruptedException {
    int resp = FreePort.pick();
    int http = FreePort.pick();
    int thrift = FreePort.pick();
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    List<String> cmd = new ArrayList<>(List.of(java, "-Xms" + heap, "-Xmx" + heap, "-XX:+UseParallelGC",
        "-cp", System.getProperty("java.class.path"), "org.kvstore.server.ServerMain",
        "--data-dir", dataDir.toString(), "--bind", HOST, "--resp-port", Integer.toString(resp),
        "--http-port", Integer.toString(http), "--thrift-port", Integer.toString(thrift),
        "--durability", durability.name().toLowerCase(Locale.ROOT), "--log-level", "warn"));
    if (engine != null) {
      cmd.add("--default-engine");
      cmd.add(engine);
    }
    long t0 = System.nanoTime();
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true)
        .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
    try {
      Readiness.awaitFirstAnswer(HOST, resp, readyKey, START_TIMEOUT, p);
    } catch (RuntimeException | InterruptedException e) {
      p.destroyForcibly();
      throw e;
    }
    return new ChildServer(p, resp, http, thrift, Duration.ofNanos(System.nanoTime() - t0));
  }

  /** From the spawn to the first answer (to {@code GET readyKey} with a value, when one was given). */
  public Duration startup() {
    return startup;
  }

  @Override
  public String name() {
    return "kvstore";
  }

  @Override
  public int respPort() {
    return resp;
  }

  @Override
  public int httpPort() {
    return http;
  }

  @Override
  public int thriftPort() {
    return thrift;
  }

  /** SIGKILL: no shutdown hook, no flush, as kill -9. */
  public void kill() throws InterruptedException {
    process.destroyForcibly();
    process.waitFor();
  }

  @Override
  public void close() {
    process.destroy();
    try {
      if (!process.waitFor(2, TimeUnit.MINUTES)) {
        process.destroyForcibly();
        throw new IllegalStateException("the server did not stop within 2 minutes of SIGTERM; killed it");
      }
    } catch (InterruptedException e) {
      process.destroyForcibly();
      Thread.currentThread().interrupt();
    }
  }
}
