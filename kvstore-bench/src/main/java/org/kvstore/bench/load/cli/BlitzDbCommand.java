package org.kvstore.bench.load.cli;

import org.kvstore.Durability;
import org.kvstore.bench.load.preset.BlitzDbPreset;
import org.kvstore.bench.load.preset.Preset;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code kvstore-bench blitzdb}. Thread safety: one command per instance. */
@Command(name = "blitzdb", mixinStandardHelpOptions = true,
    description = "BlitzDB's concurrent insert: 1M x scale rows at concurrency 1,2,4,...,64 until the curve "
        + "flattens, with 0 to 3 secondary-index entries per row in the same atomic write batch.")
final class BlitzDbCommand extends PresetCommand {
  @Option(names = "--engine", paramLabel = "ENGINE", defaultValue = "lsm",
      description = "lsm, bplus, memory or rocksdb (default: ${DEFAULT-VALUE}).")
  String engine;

  @Option(names = "--durability", paramLabel = "MODE", defaultValue = "none",
      description = "none, periodic or sync (default: ${DEFAULT-VALUE}).")
  String durability;

  @Override
  Preset preset() {
    return new BlitzDbPreset(engine, Durability.parse(durability));
  }
}
