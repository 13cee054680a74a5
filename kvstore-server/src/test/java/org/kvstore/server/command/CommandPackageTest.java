package org.kvstore.server.command;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The command semantics are shared by every front end (RESP now; HTTP and Thrift to come), so the
 * package must not depend on any protocol's package.
 */
class CommandPackageTest {
  @Test
  void sources_importNoProtocolPackage() throws IOException {
    Path dir = Path.of("src/main/java/org/kvstore/server/command");
    List<String> offenders;
    try (Stream<Path> files = Files.list(dir)) {
      offenders = files
          .filter(f -> f.toString().endsWith(".java"))
          .filter(f -> {
            try {
              String src = Files.readString(f);
              return src.contains("org.kvstore.server.resp") || src.contains("org.kvstore.server.http")
                  || src.contains("org.kvstore.server.thrift") || src.contains("io.netty");
            } catch (IOException e) {
              throw new java.io.UncheckedIOException(e);
            }
          })
          .map(f -> f.getFileName().toString())
          .toList();
    }
    assertThat(dir).isDirectory();
    assertThat(offenders).as("command sources that name a protocol package").isEmpty();
  }
}
