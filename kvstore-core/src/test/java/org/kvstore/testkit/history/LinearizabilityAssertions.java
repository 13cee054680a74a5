package org.kvstore.testkit.history;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Checks a history and, when it fails, keeps the failing keys' histories in target/reliability/.
 *
 * <p>Thread safety: stateless.
 */
public final class LinearizabilityAssertions {
  private LinearizabilityAssertions() {}

  public static void assertLinearizable(List<Operation> history, String run) throws IOException {
    long start = System.nanoTime();
    CheckResult result = LinearizabilityChecker.forRegisters().check(history);
    System.out.printf("%s: %s (checked in %d ms)%n", run, result.report().lines().findFirst().orElse(""),
        (System.nanoTime() - start) / 1_000_000);
    if (!result.isLinearizable()) {
      long origin = history.isEmpty() ? 0 : history.get(0).invokeNanos();
      Set<String> failing = result.keys().stream().filter(k -> k.verdict() != CheckResult.Verdict.LINEARIZABLE)
          .map(CheckResult.KeyResult::key).collect(Collectors.toSet());
      for (String key : failing) {
        history.stream().filter(op -> op.key().equals(key)).mapToLong(Operation::invokeNanos).min().ifPresent(first ->
            System.out.printf("%s: key %s: first invoked %d ms into the run%n", run, key, (first - origin) / 1_000_000));
      }
      String dump = history.stream().filter(op -> failing.contains(op.key()))
          .map(op -> op.key() + " #" + op.id() + " " + op.describe(origin)).collect(Collectors.joining("\n"));
      Path file = Path.of("target", "reliability", run.replaceAll("[^A-Za-z0-9_.-]", "_") + ".history.txt");
      Files.createDirectories(file.getParent());
      Files.writeString(file, result.report() + "\n\nhistories of the failing keys:\n" + dump + "\n");
      System.out.println(run + ": failing keys' histories in " + file.toAbsolutePath());
    }
    assertThat(result.verdict()).as("%s\n%s", run, result.report()).isEqualTo(CheckResult.Verdict.LINEARIZABLE);
  }
}
