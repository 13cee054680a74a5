package org.kvstore.bench.load.cli;

import java.io.PrintStream;
import java.util.concurrent.Callable;
import org.kvstore.bench.load.preset.Preset;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

/**
 * What every preset subcommand does: build its preset from its options, run it with the common
 * options, print where the report is.
 *
 * <p>Thread safety: one command per instance.
 */
abstract class PresetCommand implements Callable<Integer> {
  @Mixin
  CommonOptions common;

  @ParentCommand
  LoadMain parent;

  @Spec
  CommandSpec spec;

  abstract Preset preset();

  @Override
  public Integer call() throws Exception {
    PrintStream out = new PrintStream(new WriterOutputStream(spec.commandLine().getOut()), true,
        java.nio.charset.StandardCharsets.UTF_8);
    PresetRunner.run(preset(), common, parent.command(), out);
    out.flush();
    return 0;
  }
}
