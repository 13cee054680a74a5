package org.kvstore;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

/**
 * The main Java sources of the repository's modules, for the lint tests that read source text. A
 * lint test that scans nothing passes whatever the code does, so asking for a module whose source
 * folder is missing, or which holds fewer Java files than the module is known to have, fails.
 *
 * <p>Thread safety: stateless.
 */
final class SourceTree {
  /** Fewest main Java files a module may have; a scan of fewer has lost most of its input. */
  static final int MIN_FILES_PER_MODULE = 8;

  private SourceTree() {}

  /** The repository root: the test runs in a module's folder. */
  static Path root() {
    return Path.of("..").toAbsolutePath().normalize();
  }

  /**
   * The {@code src/main/java} folder of {@code module}.
   *
   * @throws AssertionError if it is missing
   */
  static Path mainSources(String module) {
    Path src = root().resolve(module).resolve("src/main/java");
    assertThat(src).as("main sources of %s", module).isDirectory();
    return src;
  }

  /**
   * Every {@code .java} file under the main sources of {@code module}.
   *
   * @throws AssertionError if the folder is missing or holds fewer than {@link #MIN_FILES_PER_MODULE}
   */
  static List<Path> mainJavaFiles(String module) throws IOException {
    Path src = mainSources(module);
    try (Stream<Path> files = Files.walk(src)) {
      List<Path> java = files.filter(p -> p.toString().endsWith(".java")).sorted().toList();
      assertThat(java).as("Java files under %s", src).hasSizeGreaterThanOrEqualTo(MIN_FILES_PER_MODULE);
      return java;
    }
  }

  /**
   * {@code modules} itself, checked to be a non-empty list.
   *
   * @throws AssertionError if it is empty
   */
  static List<String> modules(String... modules) {
    assertThat(modules).as("modules to scan").isNotEmpty();
    return List.of(modules);
  }
}
