package org.kvstore.server.thrift;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.kvstore.NoSpaceException;
import org.kvstore.thrift.Unavailable;

/** A full disk as Thrift says it: the IDL's {@code Unavailable}, with the message. */
class NoSpaceUnavailableTest {
  @Test
  void of_noSpace_unavailableNamingTheDirectory() {
    NoSpaceException e = new NoSpaceException(Path.of("/data/wal"), "wal: append failed",
        new IOException("No space left on device"));
    assertThat(ThriftErrors.of(e)).isInstanceOfSatisfying(Unavailable.class,
        u -> assertThat(u.getMessage()).contains("disk full").contains("/data/wal"));
  }
}
