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
 * only the SPI, the file layer and the API's types (never the core's internals, log or catalog);
 * the server uses only the public API; no package is named {@code util}; nothing imports the
 * server or the benchmarks.
 */
class ModuleDependencyRulesTest {
  private static final Pattern CORE_INTERNALS = Pattern.compile("^import (static )?org\\.kvstore\\.(internal|wal|catalog)\\.");
  private static final Pattern BELOW_API = Pattern.compile("^import (static )?org\\.kvstore\\.(internal|wal|catalog|spi|io|engine)\\.");
  private static final Pattern UPPER_MODULES = Pattern.compile("^import (static )?org\\.kvstore\\.(server|bench)\\.");

  @Test
  void engines_useOnlyTheSpiTheFileLayerAndTheApi() throws IOException {
    List<String> offenders = new ArrayList<>();
    scan("kvstore-bplus", CORE_INTERNALS, offenders);
    scan("kvstore-lsm", CORE_INTERNALS, offenders);
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
    Path src = Path.of("..").toAbsolutePath().normalize().resolve(module).resolve("src/main/java");
    if (!Files.isDirectory(src)) {
      return;
    }
    try (Stream<Path> files = Files.walk(src)) {
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
