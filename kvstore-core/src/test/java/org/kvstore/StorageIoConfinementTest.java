package org.kvstore;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * All storage I/O goes through {@link org.kvstore.io.FileSystem}, so faults can be injected under
 * every engine: no main source of the store's modules outside {@code org/kvstore/io} may use
 * {@code FileChannel}, {@code RandomAccessFile}, {@code MappedByteBuffer} or write through
 * {@code java.nio.file.Files}. The server and the benchmarks do no storage I/O of their own and are
 * checked too (the benchmarks' RocksDB and scratch files excepted).
 */
class StorageIoConfinementTest {
  private static final List<String> FORBIDDEN =
      List.of("FileChannel", "RandomAccessFile", "MappedByteBuffer", "Files.write", "Files.newOutputStream",
          "FileOutputStream", "Files.move", "Files.delete", "Files.createFile", "AsynchronousFileChannel");

  @Test
  void mainSources_useTheFileLayerForStorageIo() throws IOException {
    Path root = Path.of("..").toAbsolutePath().normalize();
    List<String> offenders = new ArrayList<>();
    for (String module : List.of("kvstore-core", "kvstore-bplus", "kvstore-lsm", "kvstore-server")) {
      Path src = root.resolve(module).resolve("src/main/java");
      if (!Files.isDirectory(src)) {
        continue;
      }
      try (Stream<Path> files = Files.walk(src)) {
        for (Path f : files.filter(p -> p.toString().endsWith(".java")).toList()) {
          String rel = src.relativize(f).toString().replace('\\', '/');
          if (rel.startsWith("org/kvstore/io/")) {
            continue;
          }
          List<String> lines = Files.readAllLines(f);
          for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i).trim();
            if (line.startsWith("*") || line.startsWith("//") || line.startsWith("/*")) {
              continue;
            }
            for (String word : FORBIDDEN) {
              if (line.contains(word)) {
                offenders.add(module + "/" + rel + ":" + (i + 1) + " uses " + word);
              }
            }
          }
        }
      }
    }
    assertThat(offenders).as("storage I/O outside org.kvstore.io").isEmpty();
  }
}
