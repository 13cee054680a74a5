package org.kvstore.server.thrift;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.api.io.TempDir;
import org.kvstore.server.KVStoreServer;
import org.kvstore.server.TestServers;

/**
 * The Python client of PyPI {@code thrift}, with bindings the Debian compiler generates from
 * kvstore.thrift at test time (into target/), in all four formats: the script
 * {@code thrift_py_client.py} calls every method (binary keys, missing db/table/key, CAS, TTL,
 * atomic batch, paged scan of 3,000 keys). The interpreter is {@code KVSTORE_TEST_PYTHON} (or the
 * system property {@code kvstore.test.python}, else {@code python3}); .ci/run installs
 * {@code thrift} into it and the compiler on the machine, so the test requires both.
 */
class ThriftPythonClientTest {
  @TempDir
  static Path dir;
  static KVStoreServer server;
  static Path script;
  static Path genPy;

  @BeforeAll
  static void start() throws Exception {
    server = KVStoreServer.start(TestServers.config(dir).set("thrift-port", "0").build());
    script = dir.resolve("thrift_py_client.py");
    try (InputStream in = ThriftPythonClientTest.class.getResourceAsStream("/thrift_py_client.py")) {
      Files.copy(in, script, StandardCopyOption.REPLACE_EXISTING);
    }
    genPy = generatePython();
  }

  @AfterAll
  static void stop() {
    server.close();
  }

  /** Python bindings of kvstore.thrift in target/thrift-py (the command docs/thrift.md gives users). */
  static Path generatePython() throws Exception {
    Path out = Path.of("target/thrift-py").toAbsolutePath();
    Files.createDirectories(out);
    String log = run(List.of("thrift", "--gen", "py", "-out", out.toString(), "src/main/thrift/kvstore.thrift"));
    assertThat(out.resolve("kvstore/KvService.py")).as("thrift --gen py output: %s", log).exists();
    return out;
  }

  static String python() {
    String p = System.getProperty("kvstore.test.python");
    if (p == null || p.isBlank()) {
      p = System.getenv("KVSTORE_TEST_PYTHON");
    }
    return p == null || p.isBlank() ? "python3" : p;
  }

  /** Runs {@code cmd}, fails unless it exits 0; returns its output. */
  static String run(List<String> cmd) throws IOException, InterruptedException {
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    p.getOutputStream().close();
    byte[] out = p.getInputStream().readAllBytes();
    assertThat(p.waitFor(120, TimeUnit.SECONDS)).as("%s finished", cmd).isTrue();
    String text = new String(out, StandardCharsets.UTF_8);
    assertThat(p.exitValue()).as("%s exit code; output:%n%s", cmd, text).isZero();
    return text;
  }

  @ParameterizedTest
  @EnumSource(ThriftWireFormat.class)
  void pythonClient_everyMethod_passes(ThriftWireFormat format) throws Exception {
    String out = run(List.of(python(), script.toString(), Integer.toString(server.thriftPort()),
        format.framed() ? "framed" : "buffered", format.binary() ? "binary" : "compact", genPy.toString()));
    assertThat(out).contains("OK");
  }
}
