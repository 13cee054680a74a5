package org.kvstore.bench.load.workload;

import java.util.Locale;
import java.util.Map;

/**
 * YCSB's core workloads A to F (the {@code workloads/workloada..f} files of the YCSB distribution):
 * records of 1,000 bytes (10 fields of 100), keys chosen by scrambled zipfian except D (latest),
 * scans of up to 100 records in E.
 *
 * <p>Thread safety: stateless.
 */
public final class YcsbWorkloads {
  /** YCSB's record: {@code fieldcount=10} x {@code fieldlength=100}. */
  public static final int RECORD_BYTES = 1000;
  /** {@code user} and a 19-digit hash in YCSB; ours carry the record number in the same length. */
  public static final int KEY_BYTES = 23;

  private YcsbWorkloads() {}

  /** Workload {@code a} to {@code f}, with the given record count. */
  public static Workload.Builder named(String letter, long records) {
    String l = letter.trim().toLowerCase(Locale.ROOT);
    Workload.Builder b = Workload.builder("ycsb-" + l).records(records).keyBytes(KEY_BYTES)
        .valueBytes(RECORD_BYTES).distribution(KeyDistribution.ZIPFIAN).maxScanLength(100);
    return switch (l) {
      case "a" -> b.mix(OperationMix.of(Map.of(Op.GET, 0.5, Op.PUT, 0.5)));
      case "b" -> b.mix(OperationMix.of(Map.of(Op.GET, 0.95, Op.PUT, 0.05)));
      case "c" -> b.mix(OperationMix.only(Op.GET));
      case "d" -> b.mix(OperationMix.of(Map.of(Op.GET, 0.95, Op.INSERT, 0.05))).distribution(KeyDistribution.LATEST);
      case "e" -> b.mix(OperationMix.of(Map.of(Op.SCAN, 0.95, Op.INSERT, 0.05)));
      case "f" -> b.mix(OperationMix.of(Map.of(Op.GET, 0.5, Op.RMW, 0.5)));
      default -> throw new IllegalArgumentException("YCSB workload '" + letter + "' is not one of a, b, c, d, e, f");
    };
  }
}
