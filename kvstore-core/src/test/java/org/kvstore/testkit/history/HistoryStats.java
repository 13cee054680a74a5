package org.kvstore.testkit.history;

import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Counts over a history, for asserting that a run did enough to make its check mean something
 * (a history of nothing but failures or empty reads is trivially linearizable).
 *
 * <p>Thread safety: immutable.
 *
 * @param okByCommand completed operations per command
 * @param okByKey completed operations per key
 * @param readsWithValue completed GETs that returned a value
 */
public record HistoryStats(int ok, int info, int fail, Map<Command, Integer> okByCommand,
    Map<String, Integer> okByKey, int readsWithValue) {

  public HistoryStats {
    okByCommand = Map.copyOf(okByCommand);
    okByKey = Map.copyOf(okByKey);
  }

  public static HistoryStats of(List<Operation> history) {
    int ok = 0;
    int info = 0;
    int fail = 0;
    int readsWithValue = 0;
    Map<Command, Integer> byCommand = new EnumMap<>(Command.class);
    Map<String, Integer> byKey = new HashMap<>();
    for (Operation op : history) {
      switch (op.status()) {
        case OK:
          ok++;
          byCommand.merge(op.command(), 1, Integer::sum);
          byKey.merge(op.key(), 1, Integer::sum);
          if (op.command() == Command.GET && op.result() != null) {
            readsWithValue++;
          }
          break;
        case INFO:
          info++;
          break;
        default:
          fail++;
          break;
      }
    }
    return new HistoryStats(ok, info, fail, byCommand, byKey, readsWithValue);
  }

  /** Completed operations of {@code command}. */
  public int ok(Command command) {
    return okByCommand.getOrDefault(command, 0);
  }

  /** Keys with at least {@code n} completed operations. */
  public long keysWithAtLeast(int n) {
    return okByKey.values().stream().filter(c -> c >= n).count();
  }

  @Override
  public String toString() {
    return "ok=" + ok + " info=" + info + " fail=" + fail + " keys=" + okByKey.size()
        + " readsWithValue=" + readsWithValue + " " + okByCommand;
  }
}
