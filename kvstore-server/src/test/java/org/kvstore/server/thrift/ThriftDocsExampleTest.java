package org.kvstore.server.thrift;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.kvstore.server.KVStoreServer;
import org.kvstore.server.TestServers;

/** The complete Java and Python examples of docs/thrift.md, compiled and run against a server as written. */
class ThriftDocsExampleTest {
  @TempDir
  static Path dir;
  static KVStoreServer server;

  @BeforeAll
  static void start() {
    server = KVStoreServer.start(TestServers.config(dir.resolve("data")).set("thrift-port", "0").build());
  }

  @AfterAll
  static void stop() {
    server.close();
  }

  private static String block(String language) throws Exception {
    String doc = Files.readString(Path.of("..", "docs", "thrift.md"));
    Matcher m = Pattern.compile("```" + language + "\\n(.*?)```", Pattern.DOTALL).matcher(doc);
    assertThat(m.find()).as("a ```%s block in docs/thrift.md", language).isTrue();
    return m.group(1);
  }

  @Test
  void javaExample_compilesAndRuns() throws Exception {
    Path src = dir.resolve("java/KvExample.java");
    Files.createDirectories(src.getParent());
    Files.writeString(src, block("java"));
    Path classes = Files.createDirectories(dir.resolve("classes"));
    JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
    ByteArrayOutputStream errors = new ByteArrayOutputStream();
    int rc = javac.run(null, null, errors, "-cp", System.getProperty("java.class.path"), "-d", classes.toString(),
        src.toString());
    assertThat(rc).as("javac: %s", errors.toString(StandardCharsets.UTF_8)).isZero();
    PrintStream stdout = System.out;
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (URLClassLoader loader = new URLClassLoader(new URL[] {classes.toUri().toURL()},
        ThriftDocsExampleTest.class.getClassLoader())) {
      System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
      loader.loadClass("KvExample").getMethod("main", String[].class)
          .invoke(null, (Object) new String[] {"127.0.0.1", Integer.toString(server.thriftPort())});
    } finally {
      System.setOut(stdout);
    }
    assertThat(out.toString(StandardCharsets.UTF_8))
        .contains("alice = owner", "bob: KEY_NOT_FOUND", "scan: alice");
  }

  @Test
  void pythonExample_runs() throws Exception {
    Path genPy = ThriftPythonClientTest.generatePython();
    Path script = dir.resolve("example.py");
    Files.writeString(script, block("python"));
    ProcessBuilder pb = new ProcessBuilder(List.of(ThriftPythonClientTest.python(), script.toString(), "127.0.0.1",
        Integer.toString(server.thriftPort()))).redirectErrorStream(true);
    pb.environment().put("PYTHONPATH", genPy.toString());
    Process p = pb.start();
    p.getOutputStream().close();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue()).as(out).isZero();
    assertThat(out).contains("alice = owner", "bob: 3", "scan: b'alice'", "scan: b'session:1'");
  }
}
