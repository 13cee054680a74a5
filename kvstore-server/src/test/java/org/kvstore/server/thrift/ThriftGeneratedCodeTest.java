package org.kvstore.server.thrift;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The checked-in Java of package org.kvstore.thrift must be exactly what generate.sh makes from
 * kvstore.thrift (Debian's thrift-compiler 0.17.0, which .ci/run installs): an IDL change without
 * regenerating, or a hand edit of generated code, fails here.
 */
class ThriftGeneratedCodeTest {
  private static final Path THRIFT_DIR = Path.of("src/main/thrift");
  private static final Path CHECKED_IN = Path.of("src/main/java/org/kvstore/thrift");

  @Test
  void generatedJava_idlRegenerated_matchesCheckedIn() throws Exception {
    Path out = Path.of("target/thrift-check");
    deleteTree(out);
    Files.createDirectories(out);
    Process p = new ProcessBuilder("bash", THRIFT_DIR.resolve("generate.sh").toString(), out.toString())
        .redirectErrorStream(true).start();
    String log = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(120, TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue())
        .as("generate.sh failed (is Debian's thrift-compiler 0.17.0 installed? .ci/run installs it):%n%s", log)
        .isZero();
    Path generated = out.resolve("org/kvstore/thrift");
    assertThat(names(generated)).as("generated files").isEqualTo(names(CHECKED_IN));
    List<String> differing = new ArrayList<>();
    for (String name : names(generated)) {
      if (!Files.readString(generated.resolve(name)).equals(Files.readString(CHECKED_IN.resolve(name)))) {
        differing.add(name);
      }
    }
    assertThat(differing)
        .as("checked-in files that differ from what kvstore.thrift generates; run"
            + " kvstore-server/src/main/thrift/generate.sh and commit the result")
        .isEmpty();
  }

  private static TreeSet<String> names(Path dir) throws IOException {
    try (Stream<Path> s = Files.list(dir)) {
      return s.map(f -> f.getFileName().toString()).collect(java.util.stream.Collectors.toCollection(TreeSet::new));
    }
  }

  private static void deleteTree(Path dir) throws IOException {
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> s = Files.walk(dir)) {
      for (Path f : s.sorted(java.util.Comparator.reverseOrder()).toList()) {
        Files.delete(f);
      }
    }
  }
}
