package org.kvstore.server.command;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.OperatingSystemMXBean;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/**
 * The CPU time this process has used, for {@code INFO cpu} ({@code used_cpu_user},
 * {@code used_cpu_sys}, as Redis reports them from {@code getrusage}).
 *
 * <p>On Linux the split into user and system time comes from {@code /proc/self/stat} (fields 14
 * and 15, {@code utime} and {@code stime}, in clock ticks of {@link #TICKS_PER_SECOND}, the
 * kernel's fixed {@code USER_HZ}). Elsewhere only the total is known (from the platform's
 * {@link com.sun.management.OperatingSystemMXBean}).
 *
 * <p>Thread safety: stateless; every call reads the current values.
 */
public final class ProcessCpuTimes {
  /** {@code USER_HZ}: the unit of {@code /proc} CPU times on every Linux architecture. */
  static final int TICKS_PER_SECOND = 100;
  private static final Path PROC_STAT = Path.of("/proc/self/stat");

  /** User and system CPU seconds. */
  public record Split(double userSeconds, double systemSeconds) {}

  private ProcessCpuTimes() {}

  /** User and system CPU seconds of this process, if the platform tells them apart. */
  public static Optional<Split> split() {
    try {
      return Optional.of(parse(Files.readString(PROC_STAT, StandardCharsets.US_ASCII)));
    } catch (IOException | RuntimeException e) {
      return Optional.empty(); // not Linux, or /proc not mounted: the total is still reported
    }
  }

  /** CPU seconds of this process (user and system), or -1 when the JVM does not report them. */
  public static double totalSeconds() {
    OperatingSystemMXBean os = ManagementFactory.getOperatingSystemMXBean();
    if (os instanceof com.sun.management.OperatingSystemMXBean sun) {
      long nanos = sun.getProcessCpuTime();
      return nanos < 0 ? -1 : nanos / 1e9;
    }
    return -1;
  }

  /**
   * Parses a {@code /proc/<pid>/stat} line. The command name (field 2) is in parentheses and may
   * itself contain spaces and parentheses, so fields are counted from the last {@code ')'}.
   *
   * @throws IllegalArgumentException when the line has no such fields
   */
  static Split parse(String stat) {
    int close = stat.lastIndexOf(')');
    if (close < 0) {
      throw new IllegalArgumentException("no command name in /proc stat line: " + stat);
    }
    String[] f = stat.substring(close + 1).trim().split(" +");
    // f[0] is field 3 (state), so field n is f[n - 3]
    if (f.length < 13) {
      throw new IllegalArgumentException("too few fields in /proc stat line: " + stat);
    }
    long utime = Long.parseLong(f[14 - 3]);
    long stime = Long.parseLong(f[15 - 3]);
    return new Split((double) utime / TICKS_PER_SECOND, (double) stime / TICKS_PER_SECOND);
  }
}
