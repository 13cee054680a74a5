package org.kvstore.server.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;

/**
 * Runs the external clients of the HTTP tests: the Python interpreter (system property
 * {@code kvstore.test.python}, else {@code KVSTORE_TEST_PYTHON}, else {@code python3}, as
 * RedisPyTest), tools installed beside it in its venv (schemathesis), and curl.
 */
final class ExternalTools {
  private ExternalTools() {}

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

  /** Skips the test, with the reason, unless the interpreter can import {@code modules}. */
  static void assumePythonModules(Path dir, String... modules) throws Exception {
    Result r;
    try {
      r = run(dir, 60, python(), "-c", "import " + String.join(", ", modules));
    } catch (IOException e) {
      r = new Result(-1, "", e.getMessage());
    }
    Assumptions.assumeTrue(r.exit() == 0, "python " + python() + " cannot import " + String.join(", ", modules)
        + " (.ci/run installs them): " + r.err());
  }

  /** Copies test resource {@code name} into {@code dir}. */
  static Path resource(Path dir, String name) throws IOException {
    Path target = dir.resolve(name);
    try (InputStream in = ExternalTools.class.getResourceAsStream("/" + name)) {
      assertThat(in).as("test resource " + name).isNotNull();
      Files.copy(in, target, StandardCopyOption.REPLACE_EXISTING);
    }
    return target;
  }

  static Result run(Path dir, long timeoutSeconds, String... cmd) throws IOException, InterruptedException {
    return run(dir, timeoutSeconds, List.of(cmd));
  }

  static Result run(Path dir, long timeoutSeconds, List<String> cmd) throws IOException, InterruptedException {
    Path out = Files.createTempFile(dir, "out", ".txt");
    Path err = Files.createTempFile(dir, "err", ".txt");
    Process p = new ProcessBuilder(cmd)
        .directory(dir.toFile())
        .redirectInput(ProcessBuilder.Redirect.from(Path.of("/dev/null").toFile()))
        .redirectOutput(out.toFile())
        .redirectError(err.toFile())
        .start();
    if (!p.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
      p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
      throw new AssertionError("timed out after " + timeoutSeconds + " s: " + String.join(" ", cmd)
          + "\n" + new Result(-1, Files.readString(out), Files.readString(err)));
    }
    return new Result(p.exitValue(), Files.readString(out), Files.readString(err));
  }
}
