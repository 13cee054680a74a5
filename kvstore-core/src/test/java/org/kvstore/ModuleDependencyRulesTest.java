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
    for (String module : SourceTree.modules("kvstore-bplus", "kvstore-lsm")) {
      scan(module, CORE_INTERNALS, offenders);
    }
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
    for (String module : SourceTree.modules("kvstore-core", "kvstore-bplus", "kvstore-lsm")) {
      scan(module, UPPER_MODULES, offenders);
    }
    assertThat(offenders).isEmpty();
  }

  @Test
  void noPackageIsCalledUtil() throws IOException {
    Path root = SourceTree.root();
    List<String> offenders = new ArrayList<>();
    int packages = 0;
    for (String module : SourceTree.modules("kvstore-core", "kvstore-bplus", "kvstore-lsm", "kvstore-server", "kvstore-bench")) {
      Path src = root.resolve(module).resolve("src");
      assertThat(src).as("sources of %s", module).isDirectory();
      try (Stream<Path> dirs = Files.walk(src)) {
        for (Path d : dirs.filter(Files::isDirectory).toList()) {
          packages++;
          if (d.getFileName().toString().matches("utils?")) {
            offenders.add(root.relativize(d).toString());
          }
        }
      }
    }
    assertThat(packages).as("folders walked").isGreaterThanOrEqualTo(40);
    assertThat(offenders).isEmpty();
  }

  /** Adds each line of {@code module}'s main sources that {@code forbidden} matches to {@code offenders}. */
  private static void scan(String module, Pattern forbidden, List<String> offenders) throws IOException {
    Path src = SourceTree.mainSources(module);
    for (Path f : SourceTree.mainJavaFiles(module)) {
      List<String> lines = Files.readAllLines(f);
      for (int i = 0; i < lines.size(); i++) {
        if (forbidden.matcher(lines.get(i)).find()) {
          offenders.add(module + "/" + src.relativize(f) + ":" + (i + 1) + " " + lines.get(i).trim());
        }
      }
    }
  }
}
