package org.kvstore.server;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The server as a child JVM ({@code java ... org.kvstore.server.ServerMain}), with the test's class
 * path (the same classes the shaded jar holds; the jar itself is only built in the package phase)
 * and the production logback.xml. Collects its stdout and stderr lines.
 */
final class ServerProcess implements AutoCloseable {
  private static final Pattern STARTED = Pattern.compile("RESP on [^ ]+:(\\d+)");
  private static final Pattern HTTP_STARTED = Pattern.compile("HTTP on [^ ]+:(\\d+)");

  private final Process process;
  private final List<String> out = Collections.synchronizedList(new ArrayList<>());
  private final List<String> err = Collections.synchronizedList(new ArrayList<>());

  private final Thread outPump;
  private final Thread errPump;

  private ServerProcess(Process process) {
    this.process = process;
    outPump = pump(process.getInputStream(), out);
    errPump = pump(process.getErrorStream(), err);
  }

  static ServerProcess launch(String... args) throws IOException {
    return launchWithHeap("256m", args);
  }

  /** Like {@link #launch}, with a maximum heap of {@code heap} ({@code -Xmx}). */
  static ServerProcess launchWithHeap(String heap, String... args) throws IOException {
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    cmd.add("-Xmx" + heap);
    cmd.add("-XX:TieredStopAtLevel=1");
    cmd.add("-cp");
    cmd.add(System.getProperty("java.class.path"));
    cmd.add("-Dlogback.configurationFile=" + productionLogback());
    cmd.add(ServerMain.class.getName());
    if (!List.of(args).contains("--warmup-duration")) {
      // Tests restart servers often and measure nothing: the warm-up would only add seconds.
      cmd.add("--warmup-duration");
      cmd.add("0");
    }
    Collections.addAll(cmd, args);
    ProcessBuilder pb = new ProcessBuilder(cmd);
    return new ServerProcess(pb.start());
  }

  private static String productionLogback() {
    try {
      // target/classes/logback.xml (not the test configuration, which hides INFO lines)
      File f = new File(ServerMain.class.getProtectionDomain().getCodeSource().getLocation().toURI());
      return new File(f, "logback.xml").getPath();
    } catch (URISyntaxException e) {
      throw new IllegalStateException(e);
    }
  }

  private static Thread pump(java.io.InputStream in, List<String> sink) {
    Thread t = new Thread(() -> {
      try (BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
        for (String line; (line = r.readLine()) != null; ) {
          sink.add(line);
        }
      } catch (IOException e) {
        // the process ended
      }
    });
    t.setDaemon(true);
    t.start();
    return t;
  }

  /** Waits (up to 30 s) for the start-up line and returns the RESP port it names. */
  int awaitPort() throws InterruptedException {
    return awaitPort(STARTED);
  }

  /** After {@link #awaitPort()}: the HTTP port the start-up line names. */
  int httpPort() throws InterruptedException {
    return awaitPort(HTTP_STARTED);
  }

  private int awaitPort(Pattern started) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (System.nanoTime() < deadline) {
      synchronized (out) {
        for (String line : out) {
          Matcher m = started.matcher(line);
          if (m.find()) {
            return Integer.parseInt(m.group(1));
          }
        }
      }
      if (!process.isAlive()) {
        throw new IllegalStateException("server exited " + process.exitValue() + ": " + err + " " + out);
      }
      Thread.sleep(20);
    }
    throw new IllegalStateException("no start-up line within 30 s: " + out + " " + err);
  }

  /** Exit code, waiting up to 30 s. */
  int awaitExit() throws InterruptedException {
    if (!process.waitFor(30, TimeUnit.SECONDS)) {
      process.destroyForcibly();
      throw new IllegalStateException("server did not exit: " + out + " " + err);
    }
    outPump.join(5000); // the pumps end at EOF
    errPump.join(5000);
    return process.exitValue();
  }

  void sigterm() {
    // SIGTERM. Not Process.destroy(): it also closes our ends of the child's pipes, so the child's
    // shutdown log would be lost.
    process.toHandle().destroy();
  }

  void kill9() throws InterruptedException {
    process.destroyForcibly();
    process.waitFor(30, TimeUnit.SECONDS);
  }

  boolean isAlive() {
    return process.isAlive();
  }

    long pid() {
    return process.pid();
  }

  List<String> stdout() {
    synchronized (out) {
      return List.copyOf(out);
    }
  }

  List<String> stderr() {
    synchronized (err) {
      return List.copyOf(err);
    }
  }

  @Override
  public void close() {
    if (process.isAlive()) {
      process.destroyForcibly();
    }
  }
}
