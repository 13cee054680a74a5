package org.kvstore.server.resp;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.kvstore.Durability;
import org.kvstore.KVStore;
import org.kvstore.StoreOptions;
import org.kvstore.Table;
import org.kvstore.server.command.Keyspace;
import org.kvstore.server.command.ServerSettings;
import org.kvstore.testkit.FakeClock;

/**
 * The RESP command layer over a store whose clock the test moves ({@link FakeClock}), without a
 * network: a fresh store (durability none) under a temporary folder, 16 databases on the
 * {@code memory} engine (the engine that implements expiry), and one connection whose requests
 * {@link #call} runs through {@link RespCommandExecutor#execute}, as the handler does, returning the
 * reply as the bytes the client would read. Opened before each test, closed and deleted after it;
 * register it with {@code @RegisterExtension}. Tests move the clock instead of sleeping.
 *
 * <p>Thread safety: confined to the test's thread.
 */
final class FakeClockServer implements BeforeEachCallback, AfterEachCallback {
  private final FakeClock clock = FakeClock.atDefaultStart();
  private Path dir;
  private KVStore store;
  private Keyspace keyspace;
  private RespSession session;
  private RespCommandExecutor executor;

  @Override
  public void beforeEach(ExtensionContext context) throws IOException {
    dir = Files.createTempDirectory("kvstore-resp-test");
    store = KVStore.open(dir, StoreOptions.builder().durability(Durability.NONE).clock(clock).build());
    keyspace = new Keyspace(store, "memory", 16);
    keyspace.ensureDefaults();
    ServerSettings settings = new ServerSettings(
        "test", dir, "127.0.0.1", Durability.NONE, null, 100, 512L << 20, 1 << 20);
    executor = new RespCommandExecutor(keyspace, settings);
    InetSocketAddress loopback = new InetSocketAddress("127.0.0.1", 6379);
    session = executor.open(loopback, loopback);
  }

  @Override
  public void afterEach(ExtensionContext context) throws IOException {
    store.close();
    try (Stream<Path> paths = Files.walk(dir)) {
      for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(p);
      }
    }
  }

  FakeClock clock() {
    return clock;
  }

  KVStore store() {
    return store;
  }

  /** Table {@code n} of database default ({@code SELECT n}). */
  Table table(int n) {
    return keyspace.indexTable(n);
  }

  /** Runs one request on the test's connection; the reply as RESP text (RESP3 after HELLO 3). */
  String call(String... args) {
    RespMessage reply = executor.execute(session, RespRequest.of(args));
    ByteBuf out = Unpooled.buffer();
    try {
      RespEncoder.encode(reply, session.protocolVersion(), out);
      return out.toString(StandardCharsets.UTF_8);
    } finally {
      out.release();
    }
  }
}
