package org.kvstore.bench;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.HdrHistogram.Histogram;
import org.apache.thrift.TConfiguration;
import org.apache.thrift.TException;
import org.apache.thrift.async.AsyncMethodCallback;
import org.apache.thrift.async.TAsyncClientManager;
import org.apache.thrift.protocol.TBinaryProtocol;
import org.apache.thrift.transport.TNonblockingSocket;
import org.apache.thrift.transport.TSocket;
import org.apache.thrift.transport.TTransport;
import org.apache.thrift.transport.layered.TFramedTransport;
import org.kvstore.thrift.AlreadyExists;
import org.kvstore.thrift.KvService;
import org.kvstore.thrift.Mutation;
import org.kvstore.thrift.MutationResult;
import org.kvstore.thrift.MutationType;
import org.kvstore.thrift.NotFound;
import org.kvstore.thrift.PutOptions;
import org.kvstore.thrift.TableSpec;

/**
 * A closed-loop load of Thrift {@code put} or {@code get} calls against a running kvstore-server:
 * CLIENTS clients, each with its own framed-binary connection, each sending one call and waiting
 * for its answer before the next (unpipelined, as redis-benchmark without {@code -P}). Three client
 * styles, all libthrift's generated code: {@code --mode selector} (default) drives every client's
 * {@code KvService.Client} from one thread through one selector ({@link ThriftSelectorClients}: the
 * generated {@code send_}/{@code recv_} halves of each call), the way redis-benchmark drives its
 * clients from one event loop, so the load costs the machine little besides the server;
 * {@code --mode async} runs libthrift's {@code KvService.AsyncClient}s on one
 * {@code TAsyncClientManager} (which re-registers the socket and wakes its selector for every call:
 * more client CPU per call); {@code --mode blocking} gives each client its own thread with a blocking
 * {@code KvService.Client} (the Cassandra/HBase style), which on a small machine spends much of the
 * cores on thread switches that the server then lacks. Keys are drawn uniformly from KEYSPACE keys named as
 * redis-benchmark's {@code -r} names them ({@code key:} and 12 digits), values are VALUE_SIZE
 * bytes of {@code x} (redis-benchmark's {@code -d} payload), and the table is RESP database 0's
 * ({@code default}/{@code 0}), so a RESP run and a Thrift run against the same server read and
 * write the same keys. Every call's latency goes into an HdrHistogram.
 *
 * <pre>
 * java -cp kvstore-bench/target/benchmarks.jar org.kvstore.bench.ThriftLoad put|get
 *     [--host 127.0.0.1] [--port 9090] [--clients 50] [--keyspace 100000] [--value-size 100]
 *     [--requests N | --seconds S] [--warmup-seconds 1] [--preload true|false]
 *     [--db default] [--table 0] [--mode selector|async|blocking]   (parsed by picocli)
 * </pre>
 *
 * {@code --requests} is the total over all clients (as redis-benchmark's {@code -n}); without it
 * the run lasts {@code --seconds} (default 10). {@code --warmup-seconds} of the same calls run
 * first, on the same connections, and are not counted. {@code get} first writes every key once
 * ({@code --preload}, default true; batches of 500), so that every measured read finds its key.
 * A missing key or any error fails the run. Prints one line:
 *
 * <pre>
 * op=get clients=50 requests=100000 seconds=4.210 rps=23752 p50_ms=1.950 p99_ms=5.120 warmup_requests=21000
 * </pre>
 *
 * ({@code warmup_requests}: the uncounted warm-up calls, for a caller that divides the server's
 * CPU time by the calls it served.)
 *
 * Used by kvstore-bench/scripts/thrift-compare.sh. Not a test.
 */
public final class ThriftLoad {
  private static final int SOCKET_TIMEOUT_MS = 60_000;
  private static final int PRELOAD_BATCH = 500;
  /** Highest latency the histograms track; a slower call fails the run (the socket times out first). */
  private static final long MAX_LATENCY_NANOS = TimeUnit.SECONDS.toNanos(SOCKET_TIMEOUT_MS / 1000 + 10);

  private final Settings settings;
  private final ByteBuffer value;
  /** The run's summary line, once it finished. */
  private String line;

  private ThriftLoad(Settings settings) {
    this.settings = settings;
    byte[] v = new byte[settings.valueSize];
    Arrays.fill(v, (byte) 'x');
    this.value = ByteBuffer.wrap(v).asReadOnlyBuffer();
  }

  public static void main(String[] args) throws Exception {
    String line;
    try {
      line = measure(args);
    } catch (IllegalArgumentException e) {
      System.err.println("ThriftLoad: " + e.getMessage());
      System.exit(2);
      return;
    }
    System.out.println(line);
  }

  /** Runs the load {@code args} describe and returns the one line {@link #main} prints. */
  static String measure(String... args) throws Exception {
    ThriftLoad load = new ThriftLoad(Settings.parse(args));
    load.run();
    return load.line;
  }

  private void run() throws Exception {
    try (Connection admin = connect()) {
      ensureTable(admin.client);
      if (settings.op == Op.GET && settings.preload) {
        preload(admin.client);
      }
    }
    switch (settings.mode) {
      case SELECTOR -> runSelector();
      case ASYNC -> runAsync();
      case BLOCKING -> runBlocking();
      default -> throw new IllegalStateException("unknown mode " + settings.mode);
    }
  }

  private void runBlocking() throws Exception {
    List<Connection> connections = new ArrayList<>();
    try {
      for (int i = 0; i < settings.clients; i++) {
        connections.add(connect());
      }
      long warmup = settings.warmupSeconds > 0
          ? drive(connections, 0, System.nanoTime() + (long) (settings.warmupSeconds * 1e9)).requests : 0;
      Result r = drive(connections, settings.requests, settings.requests > 0
          ? Long.MAX_VALUE : System.nanoTime() + (long) (settings.seconds * 1e9));
      summarize(r, warmup);
    } finally {
      for (Connection c : connections) {
        c.close();
      }
    }
  }

  private void runSelector() throws Exception {
    try (ThriftSelectorClients clients = new ThriftSelectorClients(settings.host, settings.port, settings.clients)) {
      long warmup = settings.warmupSeconds > 0
          ? driveSelector(clients, 0, System.nanoTime() + (long) (settings.warmupSeconds * 1e9)).requests : 0;
      Result r = driveSelector(clients, settings.requests, settings.requests > 0
          ? Long.MAX_VALUE : System.nanoTime() + (long) (settings.seconds * 1e9));
      summarize(r, warmup);
    }
  }

  /** Like {@link #drive}, for the clients on one selector (this thread). */
  private Result driveSelector(ThriftSelectorClients clients, long requests, long deadline) throws Exception {
    Histogram histogram = new Histogram(MAX_LATENCY_NANOS, 3);
    SplittableRandom random = new SplittableRandom(System.nanoTime());
    long[] left = {requests};
    long[] completed = {0};
    ThriftSelectorClients.Calls calls = new ThriftSelectorClients.Calls() {
      @Override
      public boolean send(ThriftSelectorClients.Connection c) throws TException {
        if (requests > 0 ? left[0]-- <= 0 : System.nanoTime() >= deadline) {
          return false;
        }
        c.key = key(random.nextInt(settings.keyspace));
        c.sentNanos = System.nanoTime();
        switch (settings.op) {
          case PUT -> c.client().send_put(settings.db, settings.table, c.key, value.duplicate(), new PutOptions());
          case GET -> c.client().send_get(settings.db, settings.table, c.key);
          default -> throw new IllegalStateException("unknown op " + settings.op);
        }
        return true;
      }

      @Override
      public void receive(ThriftSelectorClients.Connection c) throws TException {
        switch (settings.op) {
          case PUT -> c.client().recv_put();
          case GET -> checkValue(c.key, c.client().recv_get());
          default -> throw new IllegalStateException("unknown op " + settings.op);
        }
        histogram.recordValue(Math.min(System.nanoTime() - c.sentNanos, MAX_LATENCY_NANOS));
        completed[0]++;
      }
    };
    long t0 = System.nanoTime();
    clients.runUntil(calls, SOCKET_TIMEOUT_MS);
    return new Result(completed[0], System.nanoTime() - t0, histogram);
  }

  private void runAsync() throws Exception {
    TAsyncClientManager manager = new TAsyncClientManager();
    List<AsyncConnection> connections = new ArrayList<>();
    try {
      for (int i = 0; i < settings.clients; i++) {
        TNonblockingSocket socket = new TNonblockingSocket(settings.host, settings.port);
        connections.add(new AsyncConnection(socket,
            new KvService.AsyncClient(new TBinaryProtocol.Factory(), manager, socket)));
      }
      long warmup = settings.warmupSeconds > 0
          ? driveAsync(connections, 0, System.nanoTime() + (long) (settings.warmupSeconds * 1e9)).requests : 0;
      Result r = driveAsync(connections, settings.requests, settings.requests > 0
          ? Long.MAX_VALUE : System.nanoTime() + (long) (settings.seconds * 1e9));
      summarize(r, warmup);
    } finally {
      for (AsyncConnection c : connections) {
        c.socket.close();
      }
      manager.stop();
    }
  }

  private void summarize(Result r, long warmup) {
    double seconds = r.nanos / 1e9;
    line = String.format(java.util.Locale.ROOT, "op=%s mode=%s clients=%d requests=%d seconds=%.3f rps=%.0f"
            + " p50_ms=%.3f p99_ms=%.3f warmup_requests=%d",
        settings.op.name().toLowerCase(), settings.mode.name().toLowerCase(), settings.clients, r.requests,
        seconds, r.requests / seconds, r.histogram.getValueAtPercentile(50) / 1e6,
        r.histogram.getValueAtPercentile(99) / 1e6, warmup);
  }

  /**
   * Like {@link #drive}, for async clients: each client's next call is sent from the callback of its
   * last one, on the manager's selector thread (so the histogram and counters need no locks).
   */
  private Result driveAsync(List<AsyncConnection> connections, long requests, long deadline) throws Exception {
    AsyncRun run = new AsyncRun(requests, deadline, connections.size());
    long t0 = System.nanoTime();
    for (AsyncConnection c : connections) {
      run.next(c);
    }
    if (!run.done.await(SOCKET_TIMEOUT_MS + (requests > 0 ? 0 : deadline - t0) / 1_000_000, TimeUnit.MILLISECONDS)) {
      throw new IllegalStateException(settings.op + " run did not finish: a call got no answer");
    }
    long nanos = System.nanoTime() - t0;
    if (run.failure.get() != null) {
      throw new IllegalStateException(settings.op + " run failed", run.failure.get());
    }
    return new Result(run.completed, nanos, run.histogram);
  }

  /** One async run's state; touched only by the selector thread once the first calls are sent. */
  private final class AsyncRun {
    final long deadline;
    final AtomicLong left;
    final boolean counted;
    final CountDownLatch done;
    final AtomicReference<Throwable> failure = new AtomicReference<>();
    final Histogram histogram = new Histogram(MAX_LATENCY_NANOS, 3);
    final SplittableRandom random = new SplittableRandom(System.nanoTime());
    volatile long completed;

    AsyncRun(long requests, long deadline, int clients) {
      this.deadline = deadline;
      this.left = new AtomicLong(requests);
      this.counted = requests > 0;
      this.done = new CountDownLatch(clients);
    }

    /** Sends {@code c}'s next call, or counts {@code c} as finished. */
    void next(AsyncConnection c) {
      if (failure.get() != null || !(counted ? left.getAndDecrement() > 0 : System.nanoTime() < deadline)) {
        done.countDown();
        return;
      }
      ByteBuffer key;
      synchronized (random) {
        key = key(random.nextInt(settings.keyspace));
      }
      long t0 = System.nanoTime();
      try {
        switch (settings.op) {
          case PUT -> c.client.put(settings.db, settings.table, key, value.duplicate(), new PutOptions(),
              new Callback<>(c, t0, v -> { }));
          case GET -> c.client.get(settings.db, settings.table, key, new Callback<>(c, t0, v -> checkValue(key, v)));
          default -> throw new IllegalStateException("unknown op " + settings.op);
        }
      } catch (TException | RuntimeException e) {
        fail(e);
      }
    }

    void fail(Throwable e) {
      failure.compareAndSet(null, e);
      done.countDown();
    }

    private final class Callback<T> implements AsyncMethodCallback<T> {
      private final AsyncConnection connection;
      private final long start;
      private final java.util.function.Consumer<T> check;

      Callback(AsyncConnection connection, long start, java.util.function.Consumer<T> check) {
        this.connection = connection;
        this.start = start;
        this.check = check;
      }

      @Override
      public void onComplete(T response) {
        histogram.recordValue(Math.min(System.nanoTime() - start, MAX_LATENCY_NANOS));
        try {
          check.accept(response);
        } catch (RuntimeException e) {
          fail(e);
          return;
        }
        completed++;
        next(connection);
      }

      @Override
      public void onError(Exception e) {
        fail(e);
      }
    }
  }

  private void checkValue(ByteBuffer key, ByteBuffer v) {
    if (v.remaining() != settings.valueSize) {
      throw new IllegalStateException("get " + StandardCharsets.US_ASCII.decode(key.rewind()) + " returned "
          + v.remaining() + " bytes, not " + settings.valueSize);
    }
  }

  /**
   * Runs every connection on its own thread until {@code requests} calls are done in all (when
   * positive) or until {@code deadline} (System.nanoTime), and returns the calls and latencies.
   */
  private Result drive(List<Connection> connections, long requests, long deadline) throws Exception {
    AtomicLong left = new AtomicLong(requests);
    AtomicReference<Throwable> failure = new AtomicReference<>();
    CountDownLatch start = new CountDownLatch(1);
    List<Thread> threads = new ArrayList<>();
    List<Histogram> histograms = new ArrayList<>();
    long[] counts = new long[connections.size()];
    for (int i = 0; i < connections.size(); i++) {
      Connection c = connections.get(i);
      Histogram h = new Histogram(MAX_LATENCY_NANOS, 3);
      histograms.add(h);
      int index = i;
      SplittableRandom random = new SplittableRandom(System.nanoTime() ^ ((long) i << 32));
      Thread t = new Thread(() -> {
        try {
          start.await();
          long n = 0;
          while (failure.get() == null
              && (requests > 0 ? left.getAndDecrement() > 0 : System.nanoTime() < deadline)) {
            ByteBuffer key = key(random.nextInt(settings.keyspace));
            long t0 = System.nanoTime();
            call(c.client, key);
            h.recordValue(Math.min(System.nanoTime() - t0, MAX_LATENCY_NANOS));
            n++;
          }
          counts[index] = n;
        } catch (Throwable e) {
          failure.compareAndSet(null, e);
        }
      }, "thrift-load-" + i);
      threads.add(t);
      t.start();
    }
    long t0 = System.nanoTime();
    start.countDown();
    for (Thread t : threads) {
      t.join();
    }
    long nanos = System.nanoTime() - t0;
    if (failure.get() != null) {
      throw new IllegalStateException(settings.op + " run failed", failure.get());
    }
    Histogram all = new Histogram(MAX_LATENCY_NANOS, 3);
    for (Histogram h : histograms) {
      all.add(h);
    }
    return new Result(Arrays.stream(counts).sum(), nanos, all);
  }

  private void call(KvService.Client client, ByteBuffer key) throws TException {
    switch (settings.op) {
      case PUT -> client.put(settings.db, settings.table, key, value.duplicate(), new PutOptions());
      case GET -> checkValue(key, client.get(settings.db, settings.table, key));
      default -> throw new IllegalStateException("unknown op " + settings.op);
    }
  }

  /**
   * Creates the target table when it does not exist yet (RESP creates database 0's table on its
   * first command; a fresh server that has seen none has no table), with the server's default engine.
   */
  private void ensureTable(KvService.Client client) throws TException {
    try {
      client.describeTable(settings.db, settings.table);
      return;
    } catch (NotFound e) {
      // created below
    }
    try {
      client.createDb(settings.db, Map.of());
    } catch (AlreadyExists e) {
      // another client created it meanwhile
    }
    try {
      client.createTable(new TableSpec(settings.db, settings.table));
    } catch (AlreadyExists e) {
      // another client created it meanwhile
    }
  }

  /** Writes every key once, so that the measured reads all find their key. */
  private void preload(KvService.Client client) throws TException {
    for (int start = 0; start < settings.keyspace; start += PRELOAD_BATCH) {
      List<Mutation> ops = new ArrayList<>(PRELOAD_BATCH);
      for (int i = start; i < Math.min(settings.keyspace, start + PRELOAD_BATCH); i++) {
        ops.add(new Mutation(MutationType.PUT, key(i)).setValue(value.duplicate()));
      }
      for (MutationResult r : client.batch(settings.db, settings.table, ops, false)) {
        if (!r.isApplied()) {
          throw new IllegalStateException("preload: a put of keys " + start + ".. was not applied");
        }
      }
    }
  }

  /** redis-benchmark's {@code -r} key for {@code i}: {@code key:} and i in 12 digits. */
  private static ByteBuffer key(int i) {
    byte[] k = new byte[16];
    k[0] = 'k';
    k[1] = 'e';
    k[2] = 'y';
    k[3] = ':';
    for (int p = 15, n = i; p >= 4; p--, n /= 10) {
      k[p] = (byte) ('0' + n % 10);
    }
    return ByteBuffer.wrap(k);
  }

  private Connection connect() throws TException {
    TTransport transport = new TFramedTransport(
        new TSocket(new TConfiguration(), settings.host, settings.port, SOCKET_TIMEOUT_MS));
    transport.open();
    return new Connection(transport, new KvService.Client(new TBinaryProtocol(transport)));
  }

  private record AsyncConnection(TNonblockingSocket socket, KvService.AsyncClient client) {}

  private record Connection(TTransport transport, KvService.Client client) implements AutoCloseable {
    @Override
    public void close() {
      transport.close();
    }
  }

  private record Result(long requests, long nanos, Histogram histogram) {}

  enum Op { PUT, GET }

  enum Mode { SELECTOR, ASYNC, BLOCKING }

  /** The command line; picocli fills it and checks the values it can. */
  @picocli.CommandLine.Command(name = "ThriftLoad",
      description = "Closed-loop Thrift put or get load against a running kvstore-server.")
  static final class Settings {
    @picocli.CommandLine.Parameters(index = "0", description = "put or get")
    Op op;
    @picocli.CommandLine.Option(names = "--host", description = "server host (default ${DEFAULT-VALUE})")
    String host = "127.0.0.1";
    @picocli.CommandLine.Option(names = "--port", description = "Thrift port (default ${DEFAULT-VALUE})")
    int port = 9090;
    @picocli.CommandLine.Option(names = "--clients", description = "connections (default ${DEFAULT-VALUE})")
    int clients = 50;
    @picocli.CommandLine.Option(names = "--keyspace", description = "distinct keys (default ${DEFAULT-VALUE})")
    int keyspace = 100_000;
    @picocli.CommandLine.Option(names = "--value-size", description = "value bytes (default ${DEFAULT-VALUE})")
    int valueSize = 100;
    @picocli.CommandLine.Option(names = "--requests", description = "calls over all clients; 0: run --seconds")
    long requests;
    @picocli.CommandLine.Option(names = "--seconds", description = "run length without --requests (default ${DEFAULT-VALUE})")
    double seconds = 10;
    @picocli.CommandLine.Option(names = "--warmup-seconds", description = "uncounted calls first (default ${DEFAULT-VALUE})")
    double warmupSeconds = 1;
    @picocli.CommandLine.Option(names = "--preload", arity = "1",
        description = "get: write every key first (default ${DEFAULT-VALUE})")
    boolean preload = true;
    @picocli.CommandLine.Option(names = "--db", description = "database (default ${DEFAULT-VALUE})")
    String db = "default";
    @picocli.CommandLine.Option(names = "--table", description = "table (default ${DEFAULT-VALUE})")
    String table = "0";
    @picocli.CommandLine.Option(names = "--mode", description = "client style: ${COMPLETION-CANDIDATES} (default ${DEFAULT-VALUE})")
    Mode mode = Mode.SELECTOR;

    static Settings parse(String[] args) {
      Settings s = new Settings();
      picocli.CommandLine cl = new picocli.CommandLine(s).setCaseInsensitiveEnumValuesAllowed(true);
      try {
        cl.parseArgs(args);
      } catch (picocli.CommandLine.ParameterException e) {
        throw new IllegalArgumentException(e.getMessage() + "\n" + cl.getUsageMessage(), e);
      }
      if (s.clients < 1 || s.keyspace < 1 || s.valueSize < 0 || s.requests < 0 || s.seconds <= 0) {
        throw new IllegalArgumentException("--clients and --keyspace must be positive, --value-size and "
            + "--requests not negative, --seconds positive");
      }
      return s;
    }
  }
}
