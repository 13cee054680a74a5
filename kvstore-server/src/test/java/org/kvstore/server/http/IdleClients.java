package org.kvstore.server.http;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.List;

/**
 * A child process for {@link IdleConnectionsTest}: opens {@code count} TCP connections to
 * {@code host:port}, sends nothing, prints {@code OPEN n} (or {@code FAILED ...}) and holds them
 * until its standard input closes. Run apart from the test's JVM so that the server's heap and file
 * descriptors are measured without the clients' own.
 */
public final class IdleClients {
  private IdleClients() {}

  public static void main(String[] args) throws IOException {
    InetSocketAddress address = new InetSocketAddress(args[0], Integer.parseInt(args[1]));
    int count = Integer.parseInt(args[2]);
    List<SocketChannel> open = new ArrayList<>(count);
    try {
      for (int i = 0; i < count; i++) {
        open.add(SocketChannel.open(address));
      }
      System.out.println("OPEN " + open.size());
    } catch (IOException e) {
      System.out.println("FAILED after " + open.size() + " connections: " + e);
    }
    System.out.flush();
    while (System.in.read() >= 0) {
      // hold the connections until the test closes our input
    }
    for (SocketChannel c : open) {
      c.close();
    }
  }
}
