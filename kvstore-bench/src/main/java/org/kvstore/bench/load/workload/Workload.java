package org.kvstore.bench.load.workload;

import org.kvstore.Durability;

/**
 * What a run does, declared rather than coded: the records and their sizes, the operation mix and
 * key distribution, the concurrency, and the pace. Presets and the {@code run} command build these.
 *
 * @param name a short label for tables and file names
 * @param records records preloaded before the run (the key space)
 * @param keys the key format (key size)
 * @param values the size of written values
 * @param mix the share of each operation
 * @param distribution how each operation picks its record
 * @param maxScanLength a scan reads a uniform 1..maxScanLength records
 * @param threads client threads (one connection or session each)
 * @param pipelineDepth requests each thread sends before it waits for their answers (1 = none)
 * @param durability the store's write durability, for drivers that open or start a store
 * @param targetOpsPerSecond the total pace over all threads; 0 runs flat out (closed loop)
 * @param secondaryIndexes index entries written with each put or insert, in the same atomic batch
 * @param preload whether the records are written before the measured run
 *
 * <p>Thread safety: immutable.
 */
public record Workload(
    String name,
    long records,
    KeyFormat keys,
    ValueSizer values,
    OperationMix mix,
    KeyDistribution distribution,
    int maxScanLength,
    int threads,
    int pipelineDepth,
    Durability durability,
    double targetOpsPerSecond,
    int secondaryIndexes,
    boolean preload) {

  public Workload {
    if (records < 1) {
      throw new IllegalArgumentException("records must be at least 1, was " + records);
    }
    if (threads < 1) {
      throw new IllegalArgumentException("threads must be at least 1, was " + threads);
    }
    if (pipelineDepth < 1) {
      throw new IllegalArgumentException("pipelineDepth must be at least 1, was " + pipelineDepth);
    }
    if (maxScanLength < 1) {
      throw new IllegalArgumentException("maxScanLength must be at least 1, was " + maxScanLength);
    }
    if (targetOpsPerSecond < 0) {
      throw new IllegalArgumentException("targetOpsPerSecond must not be negative, was " + targetOpsPerSecond);
    }
    if (secondaryIndexes < 0 || secondaryIndexes > 8) {
      throw new IllegalArgumentException("secondaryIndexes must be in [0, 8], was " + secondaryIndexes);
    }
  }

  public static Builder builder(String name) {
    return new Builder(name);
  }

  public Builder toBuilder() {
    return new Builder(name).records(records).keyBytes(keys.keyBytes()).values(values).mix(mix)
        .distribution(distribution).maxScanLength(maxScanLength).threads(threads)
        .pipelineDepth(pipelineDepth).durability(durability).targetOpsPerSecond(targetOpsPerSecond)
        .secondaryIndexes(secondaryIndexes).preload(preload);
  }

  /** Whether the run paces its requests (and so corrects its latencies for coordinated omission). */
  public boolean isRateLimited() {
    return targetOpsPerSecond > 0;
  }

  /** A one-line description for reports. */
  public String describe() {
    return String.format(
        "%s: %d records, %d-byte keys, %s values, mix %s, %s keys, %d threads, pipeline %d, durability %s%s%s",
        name, records, keys.keyBytes(), values, mix, distribution.label(), threads, pipelineDepth,
        durability.name().toLowerCase(java.util.Locale.ROOT),
        isRateLimited() ? String.format(", target %.0f ops/s", targetOpsPerSecond) : "",
        secondaryIndexes > 0 ? ", " + secondaryIndexes + " secondary indexes" : "");
  }

  /** Builds a {@link Workload}; defaults: 100,000 records, 16-byte keys, 100-byte values, all gets, uniform. */
  public static final class Builder {
    private String name;
    private long records = 100_000;
    private int keyBytes = 16;
    private ValueSizer values = ValueSizer.fixed(100);
    private OperationMix mix = OperationMix.only(Op.GET);
    private KeyDistribution distribution = KeyDistribution.UNIFORM;
    private int maxScanLength = 100;
    private int threads = 1;
    private int pipelineDepth = 1;
    private Durability durability = Durability.NONE;
    private double targetOpsPerSecond;
    private int secondaryIndexes;
    private boolean preload = true;

    private Builder(String name) {
      this.name = name;
    }

    public Builder name(String v) {
      name = v;
      return this;
    }

    public Builder records(long v) {
      records = v;
      return this;
    }

    public Builder keyBytes(int v) {
      keyBytes = v;
      return this;
    }

    public Builder values(ValueSizer v) {
      values = v;
      return this;
    }

    public Builder valueBytes(int v) {
      values = ValueSizer.fixed(v);
      return this;
    }

    public Builder mix(OperationMix v) {
      mix = v;
      return this;
    }

    public Builder distribution(KeyDistribution v) {
      distribution = v;
      return this;
    }

    public Builder maxScanLength(int v) {
      maxScanLength = v;
      return this;
    }

    public Builder threads(int v) {
      threads = v;
      return this;
    }

    public Builder pipelineDepth(int v) {
      pipelineDepth = v;
      return this;
    }

    public Builder durability(Durability v) {
      durability = v;
      return this;
    }

    public Builder targetOpsPerSecond(double v) {
      targetOpsPerSecond = v;
      return this;
    }

    public Builder secondaryIndexes(int v) {
      secondaryIndexes = v;
      return this;
    }

    public Builder preload(boolean v) {
      preload = v;
      return this;
    }

    public Workload build() {
      return new Workload(name, records, new KeyFormat(keyBytes), values, mix, distribution, maxScanLength,
          threads, pipelineDepth, durability, targetOpsPerSecond, secondaryIndexes, preload);
    }
  }
}
