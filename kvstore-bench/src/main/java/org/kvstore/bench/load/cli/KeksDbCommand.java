package org.kvstore.bench.load.cli;

import java.util.List;
import org.kvstore.bench.load.preset.KeksDbPreset;
import org.kvstore.bench.load.preset.Preset;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code kvstore-bench keksdb}. Thread safety: one command per instance. */
@Command(name = "keksdb", mixinStandardHelpOptions = true,
    description = "KeksDB's benchmark: 5M x scale records (12-byte keys, 500-byte values) put in random order, "
        + "then got, at 1,4,8,16,32,50,100,160,200 threads, for bplus, lsm and RocksDB; the seed's table and "
        + "its four plots.")
final class KeksDbCommand extends PresetCommand {
  @Option(names = "--stores", split = ",", paramLabel = "STORE,...",
      description = "bplus, lsm, memory, rocksdb (default: bplus,lsm,rocksdb).")
  List<String> stores;

  @Override
  Preset preset() {
    return new KeksDbPreset(stores);
  }
}
