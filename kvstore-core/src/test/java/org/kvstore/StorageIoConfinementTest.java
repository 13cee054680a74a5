package org.kvstore;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * All storage I/O goes through {@link org.kvstore.io.FileSystem}, so faults can be injected under
 * every engine: no main source of the store's modules outside {@code org/kvstore/io} may use
 * {@code FileChannel}, {@code RandomAccessFile}, {@code MappedByteBuffer} or write through
 * {@code java.nio.file.Files}. The server and the benchmarks do no storage I/O of their own and are
 * checked too (the benchmarks' RocksDB and scratch files excepted). The cluster's shard snapshots
 * go through the store's file layer as well; the Raft logs are written by Ratis' own I/O, which is
 * not in these sources.
 */
class StorageIoConfinementTest {
  private static final List<String> FORBIDDEN =
      List.of("FileChannel", "RandomAccessFile", "MappedByteBuffer", "Files.write", "Files.newOutputStream",
          "FileOutputStream", "Files.move", "Files.delete", "Files.createFile", "AsynchronousFileChannel");

  @Test
  void mainSources_useTheFileLayerForStorageIo() throws IOException {
    List<String> offenders = new ArrayList<>();
    int scanned = 0;
    for (String module : SourceTree.modules("kvstore-core", "kvstore-bplus", "kvstore-lsm", "kvstore-server",
        "kvstore-cluster")) {
      Path src = SourceTree.mainSources(module);
      for (Path f : SourceTree.mainJavaFiles(module)) {
        String rel = src.relativize(f).toString().replace('\\', '/');
        if (rel.startsWith("org/kvstore/io/")) {
          continue;
        }
        scanned++;
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
    assertThat(scanned).as("source files checked outside org.kvstore.io").isGreaterThanOrEqualTo(100);
    assertThat(offenders).as("storage I/O outside org.kvstore.io").isEmpty();
  }
}
