package org.kvstore.bench.load.cli;

import java.util.List;
import org.kvstore.Durability;
import org.kvstore.bench.load.preset.Cs739Preset;
import org.kvstore.bench.load.preset.Preset;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code kvstore-bench cs739}. Thread safety: one command per instance. */
@Command(name = "cs739", mixinStandardHelpOptions = true,
    description = "CS739's experiments over RESP, HTTP and Thrift against a kvstore-server child JVM: exp1 (1 GB "
        + "x scale of 512 B to 4 MiB values, read-only and 50/50), exp2 (cold start of 1M x scale x 4 KiB after a "
        + "clean stop and after kill -9), exp3 (1M x scale keys of 4 KiB, 1 to 512 clients).")
final class Cs739Command extends PresetCommand {
  @Option(names = "--experiments", split = ",", paramLabel = "exp1,...",
      description = "Which experiments (default: exp1,exp2,exp3).")
  List<String> experiments;

  @Option(names = "--protocols", split = ",", paramLabel = "resp,...",
      description = "Which protocols for exp1 and exp3 (default: resp,http,thrift).")
  List<String> protocols;

  @Option(names = "--durability", paramLabel = "MODE", defaultValue = "sync",
      description = "kvstore-server's durability: none, periodic or sync (default: ${DEFAULT-VALUE}).")
  String durability;

  @Option(names = "--server-heap", paramLabel = "SIZE", defaultValue = "2g",
      description = "kvstore-server's heap (-Xms and -Xmx) (default: ${DEFAULT-VALUE}).")
  String heap;

  @Override
  Preset preset() {
    return new Cs739Preset(experiments, protocols, Durability.parse(durability), heap);
  }
}
