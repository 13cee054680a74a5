package org.kvstore;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The layering of docs/architecture.md, checked on the main sources of every module: engines use
 * only the SPI, the file layer, the codec and the API's types (never the core's internals, log,
 * catalog or built-in engines, nor each other); the codec uses nothing of the project; the server
 * uses only the public API; no package is named {@code util}; nothing imports the server or the
 * benchmarks.
 */
class ModuleDependencyRulesTest {
  /** An import of the project outside the API's top-level types and the spi, io and codec packages. */
  private static final String BELOW_ENGINES = "^import (static )?org\\.kvstore\\.(?!(spi|io|codec)\\.|[A-Z]|%s\\.)";
  private static final Pattern ANY_PROJECT_IMPORT = Pattern.compile("^import (static )?org\\.kvstore\\.");
  private static final Pattern BELOW_API = Pattern.compile("^import (static )?org\\.kvstore\\.(internal|wal|catalog|spi|io|codec|engine)\\.");
  private static final Pattern UPPER_MODULES = Pattern.compile("^import (static )?org\\.kvstore\\.(server|bench)\\.");

  @Test
  void engines_useOnlyTheSpiTheFileLayerTheCodecAndTheApi() throws IOException {
    List<String> offenders = new ArrayList<>();
    scan("kvstore-bplus", Pattern.compile(String.format(BELOW_ENGINES, "bplus")), offenders);
    scan("kvstore-lsm", Pattern.compile(String.format(BELOW_ENGINES, "lsm")), offenders);
    assertThat(offenders).isEmpty();
  }

  @Test
  void codec_usesNothingOfTheProject() throws IOException {
    List<String> offenders = new ArrayList<>();
    scan("kvstore-core", "org/kvstore/codec", ANY_PROJECT_IMPORT, offenders);
    assertThat(offenders).isEmpty();
  }

  @Test
  void server_usesOnlyThePublicApi() throws IOException {
    List<String> offenders = new ArrayList<>();
    scan("kvstore-server", BELOW_API, offenders);
    assertThat(offenders).isEmpty();
  }

  @Test
  void nothingBelowTheServer_importsTheServerOrTheBenchmarks() throws IOException {
    List<String> offenders = new ArrayList<>();
    for (String module : List.of("kvstore-core", "kvstore-bplus", "kvstore-lsm")) {
      scan(module, UPPER_MODULES, offenders);
    }
    assertThat(offenders).isEmpty();
  }

  @Test
  void noPackageIsCalledUtil() throws IOException {
    Path root = Path.of("..").toAbsolutePath().normalize();
    List<String> offenders = new ArrayList<>();
    for (String module : List.of("kvstore-core", "kvstore-bplus", "kvstore-lsm", "kvstore-server", "kvstore-bench")) {
      Path src = root.resolve(module).resolve("src");
      if (!Files.isDirectory(src)) {
        continue;
      }
      try (Stream<Path> dirs = Files.walk(src)) {
        dirs.filter(Files::isDirectory)
            .filter(d -> d.getFileName().toString().matches("utils?"))
            .forEach(d -> offenders.add(root.relativize(d).toString()));
      }
    }
    assertThat(offenders).isEmpty();
  }

  private static void scan(String module, Pattern forbidden, List<String> offenders) throws IOException {
    scan(module, "", forbidden, offenders);
  }

  private static void scan(String module, String packageDir, Pattern forbidden, List<String> offenders)
      throws IOException {
    Path src = Path.of("..").toAbsolutePath().normalize().resolve(module).resolve("src/main/java");
    Path root = packageDir.isEmpty() ? src : src.resolve(packageDir);
    if (!Files.isDirectory(root)) {
      return;
    }
    try (Stream<Path> files = Files.walk(root)) {
      for (Path f : files.filter(p -> p.toString().endsWith(".java")).toList()) {
        List<String> lines = Files.readAllLines(f);
        for (int i = 0; i < lines.size(); i++) {
          if (forbidden.matcher(lines.get(i)).find()) {
            offenders.add(module + "/" + src.relativize(f) + ":" + (i + 1) + " " + lines.get(i).trim());
          }
        }
      }
    }
  }
}
