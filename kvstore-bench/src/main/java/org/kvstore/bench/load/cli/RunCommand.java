package org.kvstore.bench.load.cli;

import java.time.Duration;
import java.util.List;
import org.kvstore.Durability;
import org.kvstore.bench.load.preset.Preset;
import org.kvstore.bench.load.preset.Target;
import org.kvstore.bench.load.preset.WorkloadPreset;
import org.kvstore.bench.load.workload.KeyDistribution;
import org.kvstore.bench.load.workload.OperationMix;
import org.kvstore.bench.load.workload.RunBounds;
import org.kvstore.bench.load.workload.ValueSizer;
import org.kvstore.bench.load.workload.Workload;
import org.kvstore.bench.load.workload.YcsbWorkloads;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code kvstore-bench run}: a declared workload. Thread safety: one command per instance. */
@Command(name = "run", mixinStandardHelpOptions = true,
    description = "Runs a workload declared by the options against one or more targets, at each --threads count.")
final class RunCommand extends PresetCommand {
  @Option(names = "--target", split = ",", paramLabel = "TARGET", defaultValue = "lsm",
      description = "lsm, bplus, memory, rocksdb; redis (starts redis-server); server:resp, server:http, "
          + "server:thrift (starts kvstore-server in-process); resp://HOST:PORT, http://HOST:PORT, "
          + "thrift://HOST:PORT (a running server) (default: ${DEFAULT-VALUE}).")
  List<String> targets;

  @Option(names = "--workload-name", paramLabel = "NAME", defaultValue = "custom",
      description = "The workload's label (default: ${DEFAULT-VALUE}).")
  String workloadName;

  @Option(names = "--ycsb", paramLabel = "LETTER",
      description = "Start from YCSB core workload a-f; the options below override it.")
  String ycsb;

  @Option(names = "--records", paramLabel = "N", description = "Records (the key space) (default: 100000).")
  Long records;

  @Option(names = "--key-size", paramLabel = "BYTES", description = "Key size, at least 11 (default: 16).")
  Integer keySize;

  @Option(names = "--value-size", paramLabel = "SIZE",
      description = "Value size: 100, 4KiB, or a uniform range 100-1000 (default: 100).")
  String valueSize;

  @Option(names = "--mix", paramLabel = "OP=SHARE,...",
      description = "Operation mix over get, put, insert, scan, rmw, e.g. get=0.95,put=0.05 (default: get=1).")
  String mix;

  @Option(names = "--distribution", paramLabel = "DIST",
      description = "uniform, zipfian, sequential, shuffled, latest (default: uniform).")
  String distribution;

  @Option(names = "--scan-length", paramLabel = "N", description = "Longest scan (default: 100).")
  Integer scanLength;

  @Option(names = "--pipeline", paramLabel = "N", defaultValue = "1",
      description = "Requests in flight per connection (RESP pipelining) (default: ${DEFAULT-VALUE}).")
  int pipeline;

  @Option(names = "--durability", paramLabel = "MODE", defaultValue = "none",
      description = "none, periodic or sync, for stores and servers this command opens (default: ${DEFAULT-VALUE}).")
  String durability;

  @Option(names = "--rate", paramLabel = "OPS",
      description = "Target ops/s over all threads; latencies then count from each request's intended start.")
  Double rate;

  @Option(names = "--indexes", paramLabel = "N", defaultValue = "0",
      description = "Secondary-index entries written with each put in one atomic batch (default: ${DEFAULT-VALUE}).")
  int indexes;

  @Option(names = "--no-preload", description = "Do not write the records before measuring.")
  boolean noPreload;

  @Option(names = "--ops", paramLabel = "N", description = "Stop after N operations (instead of --duration).")
  Long ops;

  @Override
  Preset preset() {
    long n = records != null ? records : 100_000;
    Workload.Builder b = ycsb != null ? YcsbWorkloads.named(ycsb, n) : Workload.builder(workloadName).records(n);
    if (ycsb != null && !workloadName.equals("custom")) {
      b.name(workloadName);
    }
    if (keySize != null) {
      b.keyBytes(keySize);
    }
    if (valueSize != null) {
      b.values(ValueSizer.parse(valueSize));
    }
    if (mix != null) {
      b.mix(OperationMix.parse(mix));
    }
    if (distribution != null) {
      b.distribution(KeyDistribution.parse(distribution));
    }
    if (scanLength != null) {
      b.maxScanLength(scanLength);
    }
    Workload w = b.pipelineDepth(pipeline).durability(Durability.parse(durability))
        .targetOpsPerSecond(rate != null ? rate : 0).secondaryIndexes(indexes).preload(!noPreload).build();
    RunBounds bounds = ops != null ? RunBounds.ops(ops, 0)
        : RunBounds.duration(common.duration != null ? common.duration : Duration.ofSeconds(10), common.warmup);
    return new WorkloadPreset(w, targets.stream().map(Target::new).toList(), bounds);
  }
}
