package org.kvstore.bench.load.cli;

import org.kvstore.bench.load.preset.Preset;
import org.kvstore.bench.load.preset.ToyStorePreset;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code kvstore-bench toystore}. Thread safety: one command per instance. */
@Command(name = "toystore", mixinStandardHelpOptions = true,
    description = "The toy store's load test: threads x seconds (default 4 x 10 s) of 50/50 gets and puts on the "
        + "memory engine, then on a durable engine with durability none, periodic and sync; ops/s and the "
        + "fraction of the in-memory rate.")
final class ToyStoreCommand extends PresetCommand {
  @Option(names = "--engine", paramLabel = "ENGINE", defaultValue = "lsm",
      description = "The durable engine: lsm or bplus (default: ${DEFAULT-VALUE}).")
  String engine;

  @Override
  Preset preset() {
    return new ToyStorePreset(engine);
  }
}
