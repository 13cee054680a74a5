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
 * catalog or built-in engines, nor each other); the cluster likewise, through the public API, the
 * SPI and the file layer; the codec uses nothing of the project; the server
 * uses only the public API; no package is named {@code util}; nothing imports the server or the
 * benchmarks.
 */
class ModuleDependencyRulesTest {
  /** An import of the project outside the API's top-level types and the spi, io and codec packages. */
  private static final String BELOW_ENGINES = "^import (static )?org\\.kvstore\\.(?!(spi|io|codec)\\.|[A-Z]|%s\\.)";
  private static final Pattern ANY_PROJECT_IMPORT = Pattern.compile("^import (static )?org\\.kvstore\\.");
  private static final Pattern BELOW_API = Pattern.compile("^import (static )?org\\.kvstore\\.(internal|wal|catalog|spi|io|codec|engine|stats)\\.");
  private static final Pattern UPPER_MODULES = Pattern.compile("^import (static )?org\\.kvstore\\.(server|bench)\\.");

  @Test
  void engines_useOnlyTheSpiTheFileLayerTheCodecAndTheApi() throws IOException {
    List<String> offenders = new ArrayList<>();
    for (String engine : SourceTree.modules("bplus", "lsm")) {
      scan("kvstore-" + engine, Pattern.compile(String.format(BELOW_ENGINES, engine)), offenders);
    }
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

  /** The cluster writes its own files (shard snapshot stamps and directories) through the file layer, as engines do. */
  @Test
  void cluster_usesOnlyTheApiTheSpiTheFileLayerAndTheCodec() throws IOException {
    List<String> offenders = new ArrayList<>();
    for (String module : SourceTree.modules("kvstore-cluster")) {
      scan(module, Pattern.compile("^import (static )?org\\.kvstore\\.(internal|wal|catalog|engine)\\."), offenders);
    }
    assertThat(offenders).isEmpty();
  }

  @Test
  void nothingBelowTheServer_importsTheServerOrTheBenchmarks() throws IOException {
    List<String> offenders = new ArrayList<>();
    for (String module : SourceTree.modules("kvstore-core", "kvstore-bplus", "kvstore-lsm", "kvstore-cluster")) {
      scan(module, UPPER_MODULES, offenders);
    }
    assertThat(offenders).isEmpty();
  }

  @Test
  void noPackageIsCalledUtil() throws IOException {
    Path root = SourceTree.root();
    List<String> offenders = new ArrayList<>();
    int packages = 0;
    for (String module : SourceTree.modules("kvstore-core", "kvstore-bplus", "kvstore-lsm", "kvstore-server", "kvstore-bench", "kvstore-cluster")) {
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
    scan(module, "", forbidden, offenders);
  }

  /**
   * Adds each line of the main sources of {@code module} under {@code packageDir} (all of them when
   * empty) that {@code forbidden} matches to {@code offenders}; a package folder without Java files
   * fails, since a scan of nothing passes whatever the code does.
   */
  private static void scan(String module, String packageDir, Pattern forbidden, List<String> offenders)
      throws IOException {
    Path src = SourceTree.mainSources(module);
    Path root = src.resolve(packageDir);
    List<Path> files = SourceTree.mainJavaFiles(module).stream().filter(f -> f.startsWith(root)).toList();
    assertThat(files).as("Java files under %s", root).isNotEmpty();
    for (Path f : files) {
      List<String> lines = Files.readAllLines(f);
      for (int i = 0; i < lines.size(); i++) {
        if (forbidden.matcher(lines.get(i)).find()) {
          offenders.add(module + "/" + src.relativize(f) + ":" + (i + 1) + " " + lines.get(i).trim());
        }
      }
    }
  }
}
