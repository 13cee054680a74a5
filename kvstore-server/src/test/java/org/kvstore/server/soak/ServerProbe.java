package org.kvstore.server.soak;

import com.sun.tools.attach.VirtualMachine;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import com.sun.management.GcInfo;
import java.lang.management.MemoryMXBean;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.lang.management.MemoryUsage;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import javax.management.MBeanServerConnection;
import javax.management.remote.JMXConnector;
import javax.management.remote.JMXConnectorFactory;
import javax.management.remote.JMXServiceURL;

/**
 * Reads the resources of the server process from outside it:
 *
 * <ul>
 *   <li>heap after a full collection: through the JVM's local management agent (the attach API
 *       starts it; one JMX connection for the whole run), {@code MemoryMXBean.gc()}, then the
 *       heap as that full collection left it (its {@code GcInfo}). A forced full collection is the only figure that is the live set at every
 *       sample: the heap after a young collection, or the old generation's usage, climbs between full
 *       collections whatever the live set does, and {@code jvm_gc_live_data_size_bytes} changes
 *       only when the JVM happens to run a full collection. The pause it costs the server (the
 *       collection's duration, written with the sample) falls on the requests of the next window,
 *       the same in every window;
 *   <li>RSS and threads from {@code /proc/PID/status}, open descriptors from {@code /proc/PID/fd};
 *   <li>direct memory from the server's {@code /metrics}: the JVM's direct buffer pool and Netty's
 *       pooled arenas;
 *   <li>sizes of the data directory and of its log segments ({@code wal/NNNNNN.log},
 *       docs/format/wal.md), walked on disk.
 * </ul>
 *
 * <p>Thread safety: confined to the sampling thread.
 */
final class ServerProbe implements AutoCloseable {
  private static final Pattern SERIES = Pattern.compile("^([a-zA-Z_:][a-zA-Z0-9_:]*)(\\{[^}]*})? (\\S+)$");
  private static final Pattern SEGMENT = Pattern.compile("\\d{6,}\\.log");

  private final long pid;
  private final URI metrics;
  private final Path dataDir;
  private final String realDataDir;
  private final String dbLabel;
  private final String tableLabel;
  private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
  private final JMXConnector jmx;
  private final MemoryMXBean memory;
  private final com.sun.management.GarbageCollectorMXBean fullCollector;
  private final Set<String> heapPools = new HashSet<>();

  /** One resource reading. */
  record Reading(long heapAfterGcBytes, long gcMillis, long rssBytes, long jvmDirectBytes, long nettyDirectBytes,
      int openFds, int storeFileFds, int threads, long dataDirBytes, long walBytes, long memtableBytes, long blockCacheBytes,
      double spaceAmplification) {}

  // BanJNDI: the JMX address is the local agent of the child JVM this test started, over loopback.
  @SuppressWarnings("BanJNDI")
  ServerProbe(long pid, int httpPort, Path dataDir, String db, String table) throws Exception {
    this.pid = pid;
    this.dbLabel = "db=\"" + db + "\"";
    this.tableLabel = "table=\"" + table + "\"";
    this.metrics = URI.create("http://127.0.0.1:" + httpPort + "/metrics");
    this.dataDir = dataDir;
    this.realDataDir = dataDir.toRealPath() + "/";
    VirtualMachine vm = VirtualMachine.attach(Long.toString(pid));
    String address;
    try {
      address = vm.startLocalManagementAgent();
    } finally {
      vm.detach();
    }
    jmx = JMXConnectorFactory.connect(new JMXServiceURL(address));
    MBeanServerConnection server = jmx.getMBeanServerConnection();
    memory = ManagementFactory.newPlatformMXBeanProxy(server, ManagementFactory.MEMORY_MXBEAN_NAME, MemoryMXBean.class);
    for (MemoryPoolMXBean pool : ManagementFactory.getPlatformMXBeans(server, MemoryPoolMXBean.class)) {
      if (pool.getType() == MemoryType.HEAP) {
        heapPools.add(pool.getName());
      }
    }
    // The collector that manages every heap pool is the one a full collection runs (PS MarkSweep
    // beside PS Scavenge, G1 Old Generation beside G1 Young Generation).
    com.sun.management.GarbageCollectorMXBean full = null;
    for (com.sun.management.GarbageCollectorMXBean gc
        : ManagementFactory.getPlatformMXBeans(server, com.sun.management.GarbageCollectorMXBean.class)) {
      if (full == null || gc.getMemoryPoolNames().length > full.getMemoryPoolNames().length) {
        full = gc;
      }
    }
    fullCollector = Objects.requireNonNull(full, "no garbage collector bean");
  }

  Reading read() throws Exception {
    long before = fullCollector.getCollectionCount();
    memory.gc();
    GcInfo gc = fullCollector.getLastGcInfo();
    if (fullCollector.getCollectionCount() == before || gc == null) {
      throw new IllegalStateException("MemoryMXBean.gc() ran no " + fullCollector.getName() + " collection");
    }
    // The heap as the collection left it, not as it is a round trip later (the server allocates on).
    long heap = 0;
    for (Map.Entry<String, MemoryUsage> e : gc.getMemoryUsageAfterGc().entrySet()) {
      if (heapPools.contains(e.getKey())) {
        heap += e.getValue().getUsed();
      }
    }
    long gcMillis = gc.getDuration();
    Map<String, String> status = procStatus();
    Map<String, Double> series = scrape();
    long[] sizes = sizes();
    int[] fds = openFds();
    return new Reading(heap, gcMillis, kib(status.get("VmRSS")), (long) required(series,
        "jvm_buffer_memory_used_bytes{id=\"direct\"}"), (long) required(series, "netty_direct_memory_used_bytes"),
        fds[0], fds[1], Integer.parseInt(status.get("Threads").trim()), sizes[0], sizes[1],
        // The memtables' heap part: their size less the arena chunks that hold their values.
        Math.max(0, (long) (sum(series, "kv_engine_stat", dbLabel, tableLabel, "stat=\"memtable.bytes\"")
            - sum(series, "kv_engine_stat", dbLabel, tableLabel, "stat=\"memtable.arena.bytes\""))),
        (long) sum(series, "kv_engine_stat", dbLabel, tableLabel, "stat=\"block.cache.bytes\""),
        sum(series, "kv_engine_stat", dbLabel, tableLabel, "stat=\"space.amplification.x100\"") / 100);
  }

  private static double required(Map<String, Double> series, String name) {
    Double v = series.get(name);
    if (v == null) {
      throw new IllegalStateException("/metrics has no series " + name);
    }
    return v;
  }

  /** Every series of {@code /metrics}, by name with its labels as written ({@code a{b="c"}}). */
  Map<String, Double> scrape() throws IOException, InterruptedException {
    HttpResponse<String> r = http.send(HttpRequest.newBuilder(metrics).timeout(Duration.ofSeconds(30)).build(),
        HttpResponse.BodyHandlers.ofString());
    if (r.statusCode() != 200) {
      throw new IOException("GET " + metrics + ": " + r.statusCode());
    }
    Map<String, Double> series = new LinkedHashMap<>();
    for (String line : r.body().split("\n")) {
      Matcher m = SERIES.matcher(line);
      if (!line.startsWith("#") && m.matches()) {
        series.put(m.group(1) + (m.group(2) == null ? "" : m.group(2)), Double.parseDouble(m.group(3)));
      }
    }
    return series;
  }

  /** The sum of the series named {@code name} whose labels contain every one of {@code labels}. */
  static double sum(Map<String, Double> series, String name, String... labels) {
    double total = 0;
    for (Map.Entry<String, Double> e : series.entrySet()) {
      String key = e.getKey();
      if (key.equals(name) || key.startsWith(name + "{")) {
        boolean all = true;
        for (String label : labels) {
          all &= key.contains(label);
        }
        if (all) {
          total += e.getValue();
        }
      }
    }
    return total;
  }

  private Map<String, String> procStatus() throws IOException {
    Map<String, String> m = new LinkedHashMap<>();
    for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "status"))) {
      int colon = line.indexOf(':');
      if (colon > 0) {
        m.put(line.substring(0, colon), line.substring(colon + 1).trim());
      }
    }
    return m;
  }

  private static long kib(String value) {
    return Long.parseLong(value.replace("kB", "").trim()) * 1024;
  }

  /**
   * {entries of /proc/PID/fd, those open on an existing file under the data directory}. The kernel
   * shows a descriptor on a deleted file as its old path followed by " (deleted)": such a descriptor
   * is counted as other, so a reader that keeps a compacted SSTable open shows as growth there.
   */
  private int[] openFds() throws IOException {
    int[] counts = new int[2];
    try (Stream<Path> fds = Files.list(Path.of("/proc", Long.toString(pid), "fd"))) {
      for (Path fd : (Iterable<Path>) fds::iterator) {
        counts[0]++;
        String target;
        try {
          target = Files.readSymbolicLink(fd).toString();
        } catch (NoSuchFileException closed) {
          continue; // closed between the listing and the read: counted, as the listing saw it
        }
        if (target.startsWith(realDataDir) && !target.endsWith(" (deleted)")) {
          counts[1]++;
        }
      }
    }
    return counts;
  }

  /** {bytes of every file under the data directory, bytes of the log segments}. */
  private long[] sizes() throws IOException {
    long[] sizes = new long[2];
    Files.walkFileTree(dataDir, new SimpleFileVisitor<>() {
      @Override
      public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) {
        sizes[0] += attrs.size();
        if (file.getParent().getFileName().toString().equals("wal")
            && SEGMENT.matcher(file.getFileName().toString()).matches()) {
          sizes[1] += attrs.size();
        }
        return FileVisitResult.CONTINUE;
      }

      @Override
      public FileVisitResult visitFileFailed(Path file, IOException e) throws IOException {
        if (e instanceof NoSuchFileException) {
          return FileVisitResult.CONTINUE; // deleted by a compaction or a checkpoint while we walked
        }
        throw e;
      }
    });
    return sizes;
  }

  /** The numbers of the log segments now on disk, in order. */
  List<Long> walSegments() throws IOException {
    List<Long> numbers = new ArrayList<>();
    try (Stream<Path> files = Files.list(dataDir.resolve("wal"))) {
      files.map(p -> p.getFileName().toString()).filter(n -> SEGMENT.matcher(n).matches())
          .forEach(n -> numbers.add(Long.parseLong(n.substring(0, n.length() - 4))));
    }
    numbers.sort(null);
    return numbers;
  }

  @Override
  public void close() throws IOException {
    jmx.close();
  }
}
