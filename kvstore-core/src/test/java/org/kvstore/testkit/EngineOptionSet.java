package org.kvstore.testkit;

import java.util.Properties;
import java.util.function.Consumer;
import org.kvstore.Table;

/**
 * One named configuration of the engine under test for the kit's randomized model test
 * ({@link EngineContractTest#optionMatrix()}): the table's properties, how many random operations to
 * run (before {@link TestScale}), and a check of the table after the run (for example, that the
 * sizes really made the engine flush and compact).
 *
 * <p>Thread safety: immutable (the properties are copied in and must not be changed afterwards).
 *
 * @param name shown as the parameterized test's name
 */
public record EngineOptionSet(String name, Properties properties, int operations, Consumer<Table> afterRun) {
  /** Operations of the randomized test unless an option set says otherwise. */
  public static final int DEFAULT_OPERATIONS = 100_000;

  public EngineOptionSet {
    Properties copy = new Properties();
    copy.putAll(properties);
    properties = copy;
  }

  public static EngineOptionSet of(String name, Properties properties) {
    return new EngineOptionSet(name, properties, DEFAULT_OPERATIONS, t -> {});
  }

  public EngineOptionSet withOperations(int n) {
    return new EngineOptionSet(name, properties, n, afterRun);
  }

  /** {@code check} runs on the table after the random operations (and before the last reopen). */
  public EngineOptionSet withAfterRun(Consumer<Table> check) {
    return new EngineOptionSet(name, properties, operations, check);
  }

  @Override
  public String toString() {
    return name;
  }
}
