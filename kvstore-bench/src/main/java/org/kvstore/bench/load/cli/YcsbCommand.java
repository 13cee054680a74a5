package org.kvstore.bench.load.cli;

import java.util.List;
import org.kvstore.Durability;
import org.kvstore.bench.load.preset.Preset;
import org.kvstore.bench.load.preset.YcsbPreset;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code kvstore-bench ycsb}. Thread safety: one command per instance. */
@Command(name = "ycsb", mixinStandardHelpOptions = true,
    description = "YCSB core workloads A-F (1,000-byte records, scrambled zipfian; D latest; E scans) on the "
        + "embedded stores: 1M records x scale, 16 threads, 60 s per workload.")
final class YcsbCommand extends PresetCommand {
  @Option(names = "--workloads", split = ",", paramLabel = "a,b,...",
      description = "Workloads in run order (default: a,b,c,f,d,e).")
  List<String> workloads;

  @Option(names = "--stores", split = ",", paramLabel = "STORE,...",
      description = "lsm, bplus, memory, rocksdb (default: lsm,bplus,rocksdb).")
  List<String> stores;

  @Option(names = "--durability", paramLabel = "MODE", defaultValue = "none",
      description = "none, periodic or sync (default: ${DEFAULT-VALUE}).")
  String durability;

  @Override
  Preset preset() {
    return new YcsbPreset(workloads, stores, Durability.parse(durability));
  }
}
