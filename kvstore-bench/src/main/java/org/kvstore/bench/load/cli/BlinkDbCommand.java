package org.kvstore.bench.load.cli;

import org.kvstore.Durability;
import org.kvstore.bench.load.preset.BlinkDbPreset;
import org.kvstore.bench.load.preset.Preset;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code kvstore-bench blinkdb}. Thread safety: one command per instance. */
@Command(name = "blinkdb", mixinStandardHelpOptions = true,
    description = "BlinkDB's redis-benchmark matrix: SET and GET of 3-byte values, 10/100/1000 clients "
        + "(--threads) x 10k/100k/1M requests (x scale), against kvstore-server and redis-server in the same run.")
final class BlinkDbCommand extends PresetCommand {
  @Option(names = "--client", paramLabel = "CLIENT", defaultValue = "auto",
      description = "auto (redis-benchmark when on the PATH), redis-benchmark, or driver (ours) (default: ${DEFAULT-VALUE}).")
  String client;

  @Option(names = "--durability", paramLabel = "MODE", defaultValue = "none",
      description = "kvstore-server's durability: none, periodic or sync (default: ${DEFAULT-VALUE}).")
  String durability;

  @Option(names = "--server-heap", paramLabel = "SIZE", defaultValue = "2g",
      description = "kvstore-server's heap (-Xms and -Xmx) (default: ${DEFAULT-VALUE}).")
  String heap;

  @Override
  Preset preset() {
    return new BlinkDbPreset(client, Durability.parse(durability), heap);
  }
}
