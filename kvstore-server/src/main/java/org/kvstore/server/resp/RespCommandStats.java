package org.kvstore.server.resp;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.atomic.LongAdder;
import org.kvstore.server.metrics.LatencyBuckets;
import org.kvstore.server.metrics.RequestCounts;

/**
 * The counters behind {@code INFO commandstats}, {@code INFO errorstats} and
 * {@code total_error_replies}, in Redis' terms:
 *
 * <ul>
 *   <li>calls: the command ran (its handler was invoked), with the time it took;
 *   <li>failed calls: it ran and answered an error;
 *   <li>rejected calls: it was answered an error without running (wrong number of arguments,
 *       {@code NOAUTH}, refused inside {@code MULTI});
 *   <li>error replies: every error reply sent, by its code word ({@code ERR}, {@code WRONGPASS},
 *       {@code EXECABORT}, ...), also those of unknown commands and of commands run inside
 *       {@code EXEC}.
 * </ul>
 *
 * <p>Counting is on the path of every request, so a command's counters sit in arrays indexed by its
 * spec's {@link RespCommandSpec#id()} (no lookup by name) and are {@link LongAdder}s (no lock,
 * no contention between the event loops, read helpers and workers). A container command's
 * subcommands ({@code config|get}) have slots of their own after the commands' ({@link #slot});
 * only those few commands look their subcommand up by name. Error replies are counted by
 * code in a sorted map: they are rare, and the codes are the server's own few (at most
 * {@link #MAX_ERROR_CODES} are kept, as Redis keeps 128).
 *
 * <p>Thread safety: thread-safe. {@link #reset} races with concurrent counting as
 * {@link LongAdder#reset} does: a count made during it may survive it.
 */
final class RespCommandStats implements RequestCounts {
  static final int MAX_ERROR_CODES = 128;
  /** Redis looks for the end of the code in the first 32 bytes of the reply, its '-' included. */
  private static final int MAX_CODE_SEARCH = 31;

  /** The name of each slot: the commands' by id, then their subcommands'. */
  private final List<String> names;
  /** By command id: the slot of each subcommand, or null for a command without subcommands. */
  private final Map<String, Integer>[] subcommandSlots;
  private final LongAdder[] calls;
  private final LongAdder[] nanos;
  private final LongAdder[] failed;
  private final LongAdder[] rejected;
  /** By slot, calls by latency bucket ({@link LatencyBuckets}) for {@code /metrics}. */
  private final LongAdder[][] latency;
  private final Map<String, LongAdder> errors = new ConcurrentSkipListMap<>();
  private final LongAdder errorReplies = new LongAdder();

  /** {@code specs}: every command, {@code specs.get(i).id() == i}. */
  @SuppressWarnings("unchecked")
  RespCommandStats(List<RespCommandSpec> specs) {
    List<String> slotNames = new ArrayList<>();
    subcommandSlots = new Map[specs.size()];
    for (RespCommandSpec spec : specs) {
      assert spec.id() == slotNames.size() : "specs numbered in order";
      slotNames.add(spec.name());
    }
    for (RespCommandSpec spec : specs) {
      if (!spec.subcommands().isEmpty()) {
        Map<String, Integer> subs = new HashMap<>();
        for (String sub : spec.subcommands()) {
          subs.put(sub, slotNames.size());
          slotNames.add(spec.name() + "|" + sub);
        }
        subcommandSlots[spec.id()] = Map.copyOf(subs);
      }
    }
    this.names = List.copyOf(slotNames);
    int n = names.size();
    calls = adders(n);
    nanos = adders(n);
    failed = adders(n);
    rejected = adders(n);
    latency = new LongAdder[n][];
    for (int i = 0; i < n; i++) {
      latency[i] = adders(LatencyBuckets.COUNT);
    }
  }

  private static LongAdder[] adders(int n) {
    LongAdder[] a = new LongAdder[n];
    for (int i = 0; i < n; i++) {
      a[i] = new LongAdder();
    }
    return a;
  }

  /**
   * Where {@code request} for {@code spec} is counted: the command's id, or for a container command
   * with a subcommand argument that subcommand's slot; -1 (not counted, as Redis counts an unknown
   * subcommand only as an error reply) for a subcommand it does not have.
   */
  int slot(RespCommandSpec spec, RespRequest request) {
    Map<String, Integer> subs = subcommandSlots[spec.id()];
    if (subs == null || request.size() < 2) {
      return spec.id();
    }
    Integer slot = subs.get(new String(request.arg(1), StandardCharsets.ISO_8859_1).toLowerCase(Locale.ROOT));
    return slot == null ? -1 : slot;
  }

  /** {@code n} calls counted in {@code slot} ran, in {@code elapsedNanos} together. */
  void called(int slot, int n, long elapsedNanos) {
    if (slot >= 0) {
      calls[slot].add(n);
      nanos[slot].add(elapsedNanos);
      latency[slot][LatencyBuckets.index(n == 1 ? elapsedNanos : elapsedNanos / n)].add(n);
    }
  }

  /** A call counted in {@code slot} ran and answered an error (count the reply with {@link #errorReply}). */
  void failed(int slot) {
    if (slot >= 0) {
      failed[slot].increment();
    }
  }

  /** A request counted in {@code slot} was refused without running. */
  void rejected(int slot) {
    if (slot >= 0) {
      rejected[slot].increment();
    }
  }

  /** An error reply with {@code text} (code word first) is sent; returns it. */
  RespMessage.ErrorReply errorReply(RespMessage.ErrorReply reply) {
    errorReplies.increment();
    String code = code(reply.text());
    LongAdder count = errors.get(code);
    if (count == null) {
      if (errors.size() >= MAX_ERROR_CODES) {
        return reply;
      }
      count = errors.computeIfAbsent(code, c -> new LongAdder());
    }
    count.increment();
    return reply;
  }

  /** Redis' error code of a reply: its first word, or {@code ERR} when that is too long. */
  static String code(String text) {
    int limit = Math.min(text.length(), MAX_CODE_SEARCH);
    int space = text.indexOf(' ');
    return space > 0 && space < limit ? text.substring(0, space) : "ERR";
  }

  long totalErrorReplies() {
    return errorReplies.sum();
  }

  /** The {@code INFO commandstats} lines of the commands that were called, failed or rejected. */
  String commandStats() {
    Map<String, Integer> sorted = new TreeMap<>();
    for (int i = 0; i < names.size(); i++) {
      sorted.put(names.get(i), i);
    }
    StringBuilder sb = new StringBuilder();
    for (Map.Entry<String, Integer> e : sorted.entrySet()) {
      int i = e.getValue();
      long c = calls[i].sum();
      long f = failed[i].sum();
      long r = rejected[i].sum();
      if (c == 0 && f == 0 && r == 0) {
        continue;
      }
      long usec = nanos[i].sum() / 1000;
      sb.append("cmdstat_").append(e.getKey())
          .append(":calls=").append(c)
          .append(",usec=").append(usec)
          .append(",usec_per_call=")
          .append(String.format(Locale.ROOT, "%.2f", c == 0 ? 0.0 : (double) usec / c))
          .append(",rejected_calls=").append(r)
          .append(",failed_calls=").append(f)
          .append("\r\n");
    }
    return sb.toString();
  }

  /** The {@code INFO errorstats} lines, by code. */
  String errorStats() {
    StringBuilder sb = new StringBuilder();
    for (Map.Entry<String, LongAdder> e : errors.entrySet()) {
      sb.append("errorstat_").append(e.getKey()).append(":count=").append(e.getValue().sum()).append("\r\n");
    }
    return sb.toString();
  }

  /**
   * For {@code /metrics}: per command that was called, failed or rejected, its successes (calls
   * that did not fail), its errors (failed and rejected calls) and its calls' latencies.
   * {@code CONFIG RESETSTAT} resets these too; Prometheus reads that as a counter restart.
   */
  @Override
  public void visit(RequestCounts.Visitor visitor) {
    for (int i = 0; i < names.size(); i++) {
      long c = calls[i].sum();
      long f = failed[i].sum();
      long r = rejected[i].sum();
      if (c == 0 && f == 0 && r == 0) {
        continue;
      }
      long[] b = new long[LatencyBuckets.COUNT];
      for (int j = 0; j < b.length; j++) {
        b[j] = latency[i][j].sum();
      }
      visitor.command(names.get(i), Math.max(0, c - f), f + r, b, nanos[i].sum());
    }
  }

  /** CONFIG RESETSTAT: every counter to zero, the error codes forgotten. */
  void reset() {
    for (int i = 0; i < calls.length; i++) {
      calls[i].reset();
      nanos[i].reset();
      failed[i].reset();
      rejected[i].reset();
      for (LongAdder b : latency[i]) {
        b.reset();
      }
    }
    errors.clear();
    errorReplies.reset();
  }
}
