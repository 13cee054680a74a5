package org.kvstore.bench.load.report;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.Locale;

/**
 * The machine a report was measured on: cores, memory, CPU, OS, JDK, the fsync latency of the
 * disk the stores' scratch directories are on (beside the results), and the load average when the
 * run started (the machine may be shared).
 *
 * <p>Thread safety: immutable.
 */
public record MachineInfo(int cores, long memoryBytes, String cpu, String os, String jdk, long maxHeapBytes,
    double fsyncMedianMs, double fsyncP99Ms, String fsyncDir, double loadAverage) {

  private static final int FSYNC_PROBES = 50;

  /** Describes this machine, probing fsync in {@code dir}. */
  public static MachineInfo probe(Path dir) throws IOException {
    long memory = 0;
    if (ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean os) {
      memory = os.getTotalMemorySize();
    }
    double load = ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
    double[] fsync = fsyncMillis(dir);
    return new MachineInfo(Runtime.getRuntime().availableProcessors(), memory, cpuModel(),
        System.getProperty("os.name") + " " + System.getProperty("os.version") + " " + System.getProperty("os.arch"),
        System.getProperty("java.vm.name") + " " + System.getProperty("java.runtime.version"),
        Runtime.getRuntime().maxMemory(), fsync[0], fsync[1], dir.toAbsolutePath().toString(), load);
  }

  private static String cpuModel() {
    try {
      for (String line : Files.readAllLines(Path.of("/proc/cpuinfo"))) {
        if (line.startsWith("model name")) {
          return line.substring(line.indexOf(':') + 1).trim();
        }
      }
    } catch (IOException | RuntimeException e) {
      return System.getProperty("os.arch");
    }
    return System.getProperty("os.arch");
  }

  /** The median and 99th percentile of {@link #FSYNC_PROBES} appends of 4 KiB, each fsynced. */
  private static double[] fsyncMillis(Path dir) throws IOException {
    Files.createDirectories(dir);
    Path probe = Files.createTempFile(dir, "fsync-probe", ".tmp");
    double[] ms = new double[FSYNC_PROBES];
    try (FileChannel ch = FileChannel.open(probe, StandardOpenOption.WRITE, StandardOpenOption.APPEND)) {
      ByteBuffer block = ByteBuffer.allocate(4096);
      for (int i = 0; i < FSYNC_PROBES; i++) {
        block.clear();
        long t0 = System.nanoTime();
        ch.write(block);
        ch.force(false);
        ms[i] = (System.nanoTime() - t0) / 1e6;
      }
    } finally {
      Files.deleteIfExists(probe);
    }
    Arrays.sort(ms);
    return new double[] {ms[FSYNC_PROBES / 2], ms[(int) Math.ceil(FSYNC_PROBES * 0.99) - 1]};
  }

  /** One Markdown paragraph. */
  public String describe() {
    return String.format(Locale.ROOT,
        "%d cores (%s), %.1f GiB memory, %s, %s (max heap %.1f GiB); fsync of a 4 KiB append in %s: median %s ms, "
            + "p99 %s ms; load average %.2f at the start",
        cores, cpu, memoryBytes / (double) (1L << 30), os, jdk, maxHeapBytes / (double) (1L << 30), fsyncDir,
        Numbers.millis(fsyncMedianMs), Numbers.millis(fsyncP99Ms), loadAverage);
  }
}
