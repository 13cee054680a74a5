package org.kvstore.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The real Python client redis-py (PyPI {@code redis}) against the server, over RESP2 and RESP3
 * ({@code HELLO 3}, the default of redis-py 8): the script {@code redis_py_client.py} checks PING,
 * strings (binary values, SET NX/XX/GET, GETDEL, GETSET, MSET/MGET/MSETNX), counters and their
 * errors, APPEND/STRLEN/GETRANGE/SETRANGE, KEYS/SCAN/TYPE/RENAME/RANDOMKEY/DBSIZE/FLUSHDB,
 * COPY/OBJECT ENCODING/TOUCH, databases
 * ({@code db=1}), CLIENT SETNAME/GETNAME/LIST, INFO, CONFIG GET, unknown commands, KV.TABLES,
 * pipelines, and MULTI/EXEC/WATCH through {@code pipeline()} and {@code transaction()}.
 *
 * <p>The interpreter is the system property {@code kvstore.test.python}, else the environment
 * variable {@code KVSTORE_TEST_PYTHON}, else {@code python3}. The test is skipped, with the reason,
 * only when that interpreter is missing or cannot {@code import redis}; .ci/run installs redis-py.
 */
class RedisPyTest {
  static final long TIMEOUT_SECONDS = 120;

  @TempDir static Path dir;
  static KVStoreServer server;
  static Path script;

  @BeforeAll
  static void start() throws IOException {
    // The memory engine: the WATCH checks need entry versions.
    server = KVStoreServer.start(TestServers.config(dir).set("default-engine", "memory").build());
    script = dir.resolve("redis_py_client.py");
    try (InputStream in = RedisPyTest.class.getResourceAsStream("/redis_py_client.py")) {
      assertThat(in).as("test resource redis_py_client.py").isNotNull();
      Files.copy(in, script, StandardCopyOption.REPLACE_EXISTING);
    }
  }

  @AfterAll
  static void stop() {
    if (server != null) {
      server.close();
    }
  }

  record Result(int exit, String out, String err) {
    @Override
    public String toString() {
      return "exit " + exit + "\n--- stdout\n" + out + "--- stderr\n" + err;
    }
  }

  static String python() {
    String p = System.getProperty("kvstore.test.python");
    if (p == null || p.isBlank()) {
      p = System.getenv("KVSTORE_TEST_PYTHON");
    }
    return p == null || p.isBlank() ? "python3" : p;
  }

  static Result run(String... cmd) throws IOException, InterruptedException {
    Path out = Files.createTempFile(dir, "out", ".txt");
    Path err = Files.createTempFile(dir, "err", ".txt");
    Process p = new ProcessBuilder(cmd)
        .redirectInput(ProcessBuilder.Redirect.from(Path.of("/dev/null").toFile()))
        .redirectOutput(out.toFile())
        .redirectError(err.toFile())
        .start();
    if (!p.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
      p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
      throw new AssertionError("timed out after " + TIMEOUT_SECONDS + " s: " + String.join(" ", cmd)
          + "\n" + new Result(-1, Files.readString(out), Files.readString(err)));
    }
    return new Result(p.exitValue(), Files.readString(out), Files.readString(err));
  }

  /** Skips the test unless the interpreter starts and imports redis. */
  static void assumeRedisPy(String python) throws InterruptedException {
    String install = ": install redis-py with `" + python + " -m pip install redis`"
        + " (.ci/run installs it into a venv and sets KVSTORE_TEST_PYTHON)";
    Result probe;
    try {
      probe = run(python, "-c", "import redis");
    } catch (IOException e) {
      Assumptions.abort("Python interpreter '" + python + "' not found (" + e.getMessage() + ")" + install);
      return;
    }
    Assumptions.assumeTrue(probe.exit() == 0, () -> "'" + python + "' cannot import redis ("
        + probe.err().strip().lines().reduce((first, last) -> last).orElse("exit " + probe.exit()) + ")" + install);
  }

  @ParameterizedTest(name = "protocol {0}")
  @ValueSource(ints = {2, 3})
  void redisPy_unmodified_passesEveryCheck(int protocol) throws Exception {
    String python = python();
    assumeRedisPy(python);
    Result r = run(python, script.toString(), "127.0.0.1", Integer.toString(server.respPort()),
        Integer.toString(protocol));
    System.out.print(r.out());
    assertThat(r.exit()).as("%s", r).isZero();
    assertThat(r.out()).as("%s", r).startsWith("redis-py ").endsWith("all checks passed\n");
  }
}
