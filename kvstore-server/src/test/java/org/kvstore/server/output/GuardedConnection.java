package org.kvstore.server.output;

import io.netty.channel.ChannelHandlerContext;

/**
 * A {@link LocalConnection} behind a new output guard (4 MiB hard limit, 512 KiB soft limit for
 * the given seconds): what its client holds is set with the guard's reservations.
 *
 * <p>Thread safety: confined to the test's thread, as {@link LocalConnection}.
 */
public final class GuardedConnection implements AutoCloseable {
  private final OutputLimits limits;
  private final OutputGuard guard;
  private final LocalConnection connection;

  public GuardedConnection(String protocol, int softSeconds) throws Exception {
    limits = new OutputLimits(4 << 20, 512 << 10, softSeconds, 0);
    guard = limits.newGuard(protocol, () -> "test");
    connection = new LocalConnection(guard);
  }

  public OutputLimits limits() {
    return limits;
  }

  public OutputGuard guard() {
    return guard;
  }

  /** The context a producer on a worker hands its parts to. */
  public ChannelHandlerContext ctx() {
    return connection.ctx();
  }

  @Override
  public void close() throws InterruptedException {
    connection.close();
  }
}
