package org.kvstore.server.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.kvstore.NoSpaceException;

/** A full disk as HTTP says it: 507 with the stable code {@code insufficient_storage}. */
class NoSpaceProblemTest {
  @Test
  void replyFor_noSpace_507InsufficientStorageNamingTheDirectory() {
    NoSpaceException e = new NoSpaceException(Path.of("/data/wal"), "wal: append failed",
        new IOException("No space left on device"));
    HttpReply reply = HttpService.replyFor(e);
    assertThat(reply.status.code()).isEqualTo(507);
    String body = new String(reply.body, StandardCharsets.UTF_8);
    assertThat(body).contains("\"code\":\"insufficient_storage\"").contains("/data/wal").contains("disk full");
  }
}
