package org.kvstore.server.soak;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
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
import org.kvstore.server.ServerMain;

/**
 * The server under soak as a child JVM ({@code java <jvmOptions> ... ServerMain <args>}) with the
 * test's class path and the production logback.xml, so its log lines are the ones a deployment
 * writes. Collects its stdout and stderr lines.
 */
final class SoakServer implements AutoCloseable {
  private static final Pattern RESP = Pattern.compile("RESP on [^ ,]+:(\\d+)");
  private static final Pattern HTTP = Pattern.compile("HTTP on [^ ,]+:(\\d+)");

  private final Process process;
  private final List<String> out = Collections.synchronizedList(new ArrayList<>());
  private final List<String> err = Collections.synchronizedList(new ArrayList<>());
  private final Thread outPump;
  private final Thread errPump;

  private SoakServer(Process process) {
    this.process = process;
    outPump = pump(process.getInputStream(), out);
    errPump = pump(process.getErrorStream(), err);
  }

  static SoakServer launch(List<String> jvmOptions, List<String> args) throws IOException {
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    cmd.addAll(jvmOptions);
    cmd.add("-cp");
    cmd.add(System.getProperty("java.class.path"));
    cmd.add("-Dlogback.configurationFile=" + productionLogback());
    cmd.add(ServerMain.class.getName());
    cmd.addAll(args);
    return new SoakServer(new ProcessBuilder(cmd).start());
  }

  private static String productionLogback() {
    try {
      File classes = new File(ServerMain.class.getProtectionDomain().getCodeSource().getLocation().toURI());
      return new File(classes, "logback.xml").getPath();
    } catch (URISyntaxException e) {
      throw new IllegalStateException(e);
    }
  }

  private static Thread pump(InputStream in, List<String> sink) {
    Thread t = new Thread(() -> {
      try (BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
        for (String line; (line = r.readLine()) != null; ) {
          sink.add(line);
        }
      } catch (IOException e) {
        // the process ended
      }
    }, "soak-server-output");
    t.setDaemon(true);
    t.start();
    return t;
  }

  /** The RESP and HTTP ports of the start-up line, waiting up to 60 s for it. */
  int[] awaitPorts() throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (System.nanoTime() < deadline) {
      for (String line : stdout()) {
        Matcher resp = RESP.matcher(line);
        Matcher http = HTTP.matcher(line);
        if (resp.find() && http.find()) {
          return new int[] {Integer.parseInt(resp.group(1)), Integer.parseInt(http.group(1))};
        }
      }
      if (!process.isAlive()) {
        throw new IllegalStateException("server exited " + process.exitValue() + ": " + stderr() + " " + stdout());
      }
      Thread.sleep(50);
    }
    throw new IllegalStateException("no start-up line within 60 s: " + stdout() + " " + stderr());
  }

  boolean isAlive() {
    return process.isAlive();
  }

  long pid() {
    return process.pid();
  }

  /** SIGTERM (a clean shutdown: checkpoint, close, exit 0), then the exit code, waiting up to 60 s. */
  int stop() throws InterruptedException {
    process.toHandle().destroy();
    if (!process.waitFor(60, TimeUnit.SECONDS)) {
      process.destroyForcibly();
      throw new IllegalStateException("server did not exit within 60 s of SIGTERM");
    }
    outPump.join(5000);
    errPump.join(5000);
    return process.exitValue();
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
