package org.kvstore;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileSystemException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

class StorageIOExceptionTest {
  @Test
  void aMissingFile_saysSo_notOnlyItsName() {
    StorageIOException e = new StorageIOException("table default.0: get",
        new NoSuchFileException("/data/tables/1/000003.sst"));
    assertThat(e).hasMessage("table default.0: get: no such file: /data/tables/1/000003.sst");
  }

  @Test
  void fileSystemErrors_keepTheirReason_andBothFiles() {
    assertThat(new StorageIOException(Path.of("/d/LOCK"), "open", new AccessDeniedException("/d/LOCK")))
        .hasMessage("open failed on /d/LOCK: access denied: /d/LOCK");
    assertThat(new StorageIOException("rename", new FileSystemException("/d/a", "/d/b", "Read-only file system")))
        .hasMessage("rename: Read-only file system: /d/a (and /d/b)");
  }

  @Test
  void otherIoErrors_keepTheirMessage_orTheirType() {
    assertThat(new StorageIOException("sync", new IOException("Input/output error")))
        .hasMessage("sync: Input/output error");
    assertThat(new StorageIOException("sync", new IOException())).hasMessage("sync: IOException");
  }
}
