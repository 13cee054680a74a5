package org.kvstore.server.resp;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.kvstore.Durability;
import org.kvstore.KVStore;
import org.kvstore.StoreOptions;
import org.kvstore.server.command.Keyspace;
import org.kvstore.server.command.ServerSettings;
import org.kvstore.testkit.FakeClock;

/**
 * A RESP command executor for in-process tests of command replies: a fresh store of its own on the
 * {@code memory} engine (durability none, under a temporary folder) whose clock is a
 * {@link FakeClock} the test moves, so expiry is tested without sleeping. Requests run through
 * {@link RespCommandExecutor#execute} on connections ({@link RespSession}s) of the test's choice;
 * replies come back as RESP2-like text ({@link #render}). Register it with
 * {@code @RegisterExtension}.
 *
 * <p>Thread safety: confined to the test's thread.
 */
final class RespScratch implements BeforeEachCallback, AfterEachCallback {
  private Path dir;
  private KVStore store;
  private FakeClock clock;
  private RespCommandExecutor executor;
  private RespSession session;

  @Override
  public void beforeEach(ExtensionContext context) throws IOException {
    dir = Files.createTempDirectory("kvstore-resp-test");
    clock = FakeClock.atDefaultStart();
    store = KVStore.open(dir, StoreOptions.builder().durability(Durability.NONE).clock(clock).build());
    Keyspace keyspace = new Keyspace(store, "memory", 16);
    keyspace.ensureDefaults();
    ServerSettings settings = new ServerSettings(
        "test", dir, "127.0.0.1", Durability.NONE, null, 100, 512L << 20, 1 << 20);
    executor = new RespCommandExecutor(keyspace, settings);
    session = connect();
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

  RespCommandExecutor executor() {
    return executor;
  }

  /** A new connection. */
  RespSession connect() {
    return executor.open(null, null);
  }

  /** Runs {@code args} on the default connection and renders the reply. */
  String call(String... args) {
    return call(session, args);
  }

  /** Runs {@code args} on connection {@code s} and renders the reply. */
  String call(RespSession s, String... args) {
    return render(executor.execute(s, RespRequest.of(args)));
  }

  /**
   * {@code +OK}, {@code -ERR ...}, {@code :1}, {@code $value}, {@code $nil}, {@code *nil}, or an
   * array as {@code [item, item]}.
   */
  static String render(RespMessage m) {
    if (m instanceof RespMessage.SimpleString s) {
      return "+" + s.text();
    } else if (m instanceof RespMessage.ErrorReply e) {
      return "-" + e.text();
    } else if (m instanceof RespMessage.IntegerReply i) {
      return ":" + i.value();
    } else if (m instanceof RespMessage.BulkString b) {
      return "$" + new String(b.value(), StandardCharsets.UTF_8);
    } else if (m instanceof RespMessage.NullReply) {
      return "$nil";
    } else if (m instanceof RespMessage.NullArrayReply) {
      return "*nil";
    } else if (m instanceof RespMessage.ArrayReply a) {
      return a.items().stream().map(RespScratch::render).collect(Collectors.joining(", ", "[", "]"));
    }
    return m.toString();
  }
}
