package org.kvstore.bench.load.server;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;

/**
 * A loopback port free right now, for a child process that takes its port on the command line.
 * Another process may take it before the child binds; the child then fails to start, visibly.
 *
 * <p>Thread safety: stateless.
 */
public final class FreePort {
  private FreePort() {}

  public static int pick() {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      s.setReuseAddress(true);
      return s.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException("no free loopback port", e);
    }
  }
}
