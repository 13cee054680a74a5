package org.kvstore.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Loopback ports for servers a test restarts on the same port (cluster nodes named by address in
 * their membership). A port the kernel hands out for {@code bind(0)} comes from its ephemeral range,
 * the same range it takes the local ports of outgoing connections from: between a node's start and
 * its restart another connection may be given that port, and the restart fails with "Address
 * already in use". So these ports come from below the ephemeral range
 * ({@code /proc/sys/net/ipv4/ip_local_port_range}), which only explicit binds use, each checked free
 * when picked and never handed out twice in one JVM.
 *
 * <p>Thread safety: {@link #pick} is synchronized.
 */
public final class LoopbackPorts {
  private static final Path EPHEMERAL_RANGE = Path.of("/proc/sys/net/ipv4/ip_local_port_range");
  private static final int LOWEST = 10_000;
  private static final Set<Integer> GIVEN = new HashSet<>();

  private LoopbackPorts() {}

  /** A loopback port free now, below the kernel's ephemeral range, not given before in this JVM. */
  public static synchronized int pick() {
    int below = ephemeralLow();
    if (below - LOWEST >= 1_000) {
      for (int attempt = 0; attempt < 200; attempt++) {
        int port = ThreadLocalRandom.current().nextInt(LOWEST, below);
        if (!GIVEN.contains(port) && bindable(port)) {
          GIVEN.add(port);
          return port;
        }
      }
    }
    // No room below the range (an unusual kernel setting): an ephemeral port, free now.
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      GIVEN.add(s.getLocalPort());
      return s.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException("no free loopback port", e);
    }
  }

  private static boolean bindable(int port) {
    try (ServerSocket s = new ServerSocket()) {
      s.setReuseAddress(false);
      s.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 1);
      return true;
    } catch (IOException taken) {
      return false;
    }
  }

  /** The low end of the kernel's ephemeral port range; 32768 (Linux' default) where it cannot be read. */
  private static int ephemeralLow() {
    try {
      String[] range = Files.readString(EPHEMERAL_RANGE).trim().split("\\s+");
      return Integer.parseInt(range[0]);
    } catch (IOException | RuntimeException e) {
      return 32_768;
    }
  }
}
