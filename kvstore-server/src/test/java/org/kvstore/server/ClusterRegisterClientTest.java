package org.kvstore.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.kvstore.testkit.LoopbackPorts;
import org.kvstore.testkit.history.Command;
import org.kvstore.testkit.history.NotDoneException;
import redis.clients.jedis.exceptions.JedisDataException;

/**
 * Which failures {@link ClusterRegisterClient} reports as certainly not done (so the history
 * records them as failed) and which as indeterminate, against a scripted node.
 */
class ClusterRegisterClientTest {
  private final List<AutoCloseable> closing = new ArrayList<>();

  @AfterEach
  void close() throws Exception {
    for (AutoCloseable c : closing) {
      c.close();
    }
  }

  /**
   * A node that answers CLUSTER SLOTS with every slot on {@code servingPort} (its own port when 0),
   * READONLY with OK, and any other command with {@code reply} (a RESP line without its CRLF).
   */
  private int scriptedNode(int servingPort, Function<String, String> reply) throws IOException {
    ServerSocket server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    closing.add(server);
    int serving = servingPort == 0 ? server.getLocalPort() : servingPort;
    Thread t = new Thread(() -> {
      while (!server.isClosed()) {
        try {
          Socket s = server.accept();
          closing.add(s);
          Thread conn = new Thread(() -> serve(s, serving, reply));
          conn.setDaemon(true);
          conn.start();
        } catch (IOException closed) {
          return;
        }
      }
    });
    t.setDaemon(true);
    t.start();
    return server.getLocalPort();
  }

  private static void serve(Socket s, int serving, Function<String, String> reply) {
    try (BufferedReader in = new BufferedReader(new InputStreamReader(s.getInputStream(), StandardCharsets.UTF_8));
        OutputStream out = s.getOutputStream()) {
      String line;
      while ((line = in.readLine()) != null) {
        int n = Integer.parseInt(line.substring(1)); // *<n>, then n bulk strings
        List<String> args = new ArrayList<>();
        for (int i = 0; i < n; i++) {
          in.readLine();
          args.add(in.readLine());
        }
        String command = String.join(" ", args).toUpperCase();
        String answer;
        if (command.equals("CLUSTER SLOTS")) {
          answer = "*1\r\n*3\r\n:0\r\n:16383\r\n*2\r\n$9\r\n127.0.0.1\r\n:" + serving;
        } else if (command.equals("READONLY")) {
          answer = "+OK";
        } else {
          answer = reply.apply(command);
        }
        out.write((answer + "\r\n").getBytes(StandardCharsets.UTF_8));
        out.flush();
      }
    } catch (IOException | RuntimeException closed) {
      // the client went away
    }
  }

  @Test
  void replicaReader_whoseNodeRefusesConnections_reportsNotDone() throws IOException {
    int dead = LoopbackPorts.pick(); // nothing listens there
    int node = scriptedNode(dead, command -> "-ERR unexpected");
    // Reading from replicas, the client opens each connection with READONLY: a node that refuses
    // it was sent nothing, and the SET must not be recorded as maybe applied.
    try (ClusterRegisterClient client = new ClusterRegisterClient(List.of(node, dead), true, Duration.ofMillis(600))) {
      assertThatThrownBy(() -> client.execute(Command.SET, "k", "v"))
          .isInstanceOf(NotDoneException.class).hasMessageContaining("nothing sent");
    }
  }

  @Test
  void clusterDownUntilTheRetriesRunOut_reportsNotDone() throws IOException {
    int node = scriptedNode(0, command -> "-CLUSTERDOWN The cluster is down");
    try (ClusterRegisterClient client = new ClusterRegisterClient(List.of(node), false)) {
      assertThatThrownBy(() -> client.execute(Command.INCR, "k", null))
          .isInstanceOf(NotDoneException.class).hasMessageContaining("INCR k");
    }
  }

  @Test
  void outcomeUnknownReply_isIndeterminate() throws IOException {
    int node = scriptedNode(0, command -> "-ERR outcome unknown: node n1 lost the lead of shard s0");
    try (ClusterRegisterClient client = new ClusterRegisterClient(List.of(node), false)) {
      assertThatThrownBy(() -> client.execute(Command.APPEND, "k", "+1.1"))
          .isInstanceOf(JedisDataException.class).isNotInstanceOf(NotDoneException.class)
          .hasMessageContaining("outcome unknown");
    }
  }

  @Test
  void answeredOperation_returnsItsResult() throws IOException {
    int node = scriptedNode(0, command -> command.startsWith("INCR") ? ":7" : "-ERR unexpected");
    try (ClusterRegisterClient client = new ClusterRegisterClient(List.of(node), false)) {
      assertThat(client.execute(Command.INCR, "k", null)).isEqualTo(7L);
    }
  }
}
