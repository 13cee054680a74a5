package org.kvstore.testkit.history;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.Comparator;
import java.util.Deque;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.kvstore.testkit.history.CheckResult.KeyResult;
import org.kvstore.testkit.history.CheckResult.Verdict;

/**
 * Decides whether a history of single-key operations is linearizable with respect to a
 * {@link Model}: whether each operation can be given one instant between its invocation and its
 * completion such that, run in the order of those instants, the model produces every recorded
 * result.
 *
 * <h2>Algorithm</h2>
 *
 * Linearizability is compositional (Herlihy and Wing), so the history is split by key and each
 * key is checked alone. Per key this is the search of Wing and Gong as improved by Lowe ("Testing
 * for linearizability", Concurrency and Computation 29(4), 2017), in the form Porcupine
 * (github.com/anishathalye/porcupine, {@code checker.go}) uses:
 *
 * <ul>
 *   <li>The invocations ("calls") and completions ("returns") of the key's operations form one
 *       doubly linked list in time order (a call before a return at the same instant, so that
 *       such operations count as concurrent).
 *   <li>The search walks the list from its head. At a call, it tries to linearize that operation
 *       next: if the model accepts it in the current state, the operation's call and return are
 *       unlinked ("lifted") from the list, the previous state is pushed on a stack, and the walk
 *       restarts at the head. Every call before the first return is a candidate: those operations
 *       were all invoked before any unlinearized one completed.
 *   <li>Reaching a return means the operation it ends was not linearized although it completed
 *       before everything after it was invoked: the search backtracks (pops the last linearized
 *       operation, relinks it, and tries the next candidate after it). Backtracking out of an
 *       empty stack proves that the history is not linearizable.
 *   <li>Lowe's memoization: a set of (linearized operations as a bit set, model state) pairs
 *       already reached. Two paths that linearized the same operations into the same state have
 *       the same future, so the second is cut off.
 * </ul>
 *
 * <p>Indeterminate operations ({@link Operation.Status#INFO}) complete at +infinity: their
 * returns sort after everything, so they stay candidates to the end, and the search succeeds as
 * soon as every completed operation is linearized, leaving any indeterminate ones out (they did
 * not take effect) or in (they did, at the place the search gave them). Failed operations and
 * indeterminate reads cannot change a state, so they are dropped before the search.
 *
 * <p>The search is exponential in the worst case (concurrency, not length, makes it so: keep the
 * number of operations per key to a few hundred, as Jepsen does with its independent keys, and
 * the indeterminate writes per key to a few, as {@link RegisterWorkload} does: a history that is
 * linearizable is found quickly even with a dozen of them, but proving one wrong takes millions
 * of steps with five, since every place and order of them must be tried). A
 * budget of wall time for the whole check and of steps per key bounds it; a key that runs out is
 * {@link Verdict#UNKNOWN}, never a hang.
 *
 * <p>For a key that is not linearizable, the report gives the smallest failing prefix: the
 * history cut at the first completion after which it can no longer be linearized (operations
 * still running at the cut turned indeterminate, which keeps the cut sound: a linearizable
 * history stays linearizable when cut), and the operations at its end.
 *
 * <p>Thread safety: immutable; {@link #check} may run from several threads.
 *
 * @param <S> the model's state
 */
public final class LinearizabilityChecker<S> {
  /** Operations shown at the end of a counterexample. */
  private static final int WINDOW = 30;

  private final Model<S> model;
  private final Duration budget;
  private final long maxStepsPerKey;

  /**
   * @param budget wall time for one {@link #check}, all keys together
   * @param maxStepsPerKey search steps per key (a step tries one candidate or backtracks once)
   */
  public LinearizabilityChecker(Model<S> model, Duration budget, long maxStepsPerKey) {
    if (budget.isNegative() || budget.isZero()) {
      throw new IllegalArgumentException("budget must be positive: " + budget);
    }
    if (maxStepsPerKey <= 0) {
      throw new IllegalArgumentException("maxStepsPerKey must be positive: " + maxStepsPerKey);
    }
    this.model = model;
    this.budget = budget;
    this.maxStepsPerKey = maxStepsPerKey;
  }

  /** A register checker with 60 s for the whole check and 20 million steps per key. */
  public static LinearizabilityChecker<RegisterModel.Register> forRegisters() {
    return new LinearizabilityChecker<>(new RegisterModel(), Duration.ofSeconds(60), 20_000_000L);
  }

  /** Checks every key of {@code history} (operations of any keys, in any order). */
  public CheckResult check(List<Operation> history) {
    long deadline = System.nanoTime() + budget.toNanos();
    Map<String, List<Operation>> byKey = new TreeMap<>();
    for (Operation op : history) {
      byKey.computeIfAbsent(op.key(), k -> new ArrayList<>()).add(op);
    }
    List<KeyResult> results = new ArrayList<>();
    for (Map.Entry<String, List<Operation>> e : byKey.entrySet()) {
      results.add(checkKey(e.getKey(), e.getValue(), deadline));
    }
    return new CheckResult(results);
  }

  private KeyResult checkKey(String key, List<Operation> ops, long deadline) {
    List<Operation> relevant = relevant(ops);
    Outcome outcome = search(relevant, deadline);
    String counterexample = outcome.verdict() == Verdict.NOT_LINEARIZABLE
        ? smallestFailingPrefix(relevant, deadline) : "";
    int indeterminate = (int) relevant.stream().filter(op -> op.status() == Operation.Status.INFO).count();
    return new KeyResult(key, outcome.verdict(), relevant.size(), indeterminate, outcome.steps(), counterexample);
  }

  /** Without failed operations and indeterminate reads: neither can change the state. */
  private static List<Operation> relevant(List<Operation> ops) {
    List<Operation> out = new ArrayList<>();
    for (Operation op : ops) {
      boolean noEffect = op.status() == Operation.Status.FAIL
          || op.status() == Operation.Status.INFO && !op.command().mayWrite();
      if (!noEffect) {
        out.add(op);
      }
    }
    return out;
  }

  private record Outcome(Verdict verdict, long steps) {}

  /** One call or return in the search's linked list. */
  private static final class Node {
    final int op; // index into the operation list; -1 for the head
    final boolean call;
    Node match; // a call's return
    Node prev;
    Node next;

    Node(int op, boolean call) {
      this.op = op;
      this.call = call;
    }
  }

  private record Event(int op, boolean call, long time) {}

  private record Frame<S>(Node call, S stateBefore, BitSet linearizedBefore) {}

  private record CacheKey(BitSet linearized, Object state) {}

  private Outcome search(List<Operation> ops, long deadline) {
    Node head = linkedEntries(ops);
    int remaining = 0; // completed operations not yet linearized
    for (Operation op : ops) {
      if (op.status() == Operation.Status.OK) {
        remaining++;
      }
    }
    BitSet linearized = new BitSet(ops.size());
    Set<CacheKey> cache = new HashSet<>();
    Deque<Frame<S>> stack = new ArrayDeque<>();
    S state = model.initialState();
    Node entry = head.next;
    long steps = 0;
    while (remaining > 0) {
      steps++;
      if ((steps & 1023) == 0 && (steps > maxStepsPerKey || System.nanoTime() > deadline)) {
        return new Outcome(Verdict.UNKNOWN, steps);
      }
      if (entry.call) {
        Operation op = ops.get(entry.op);
        S next = model.step(state, op);
        if (next != null) {
          BitSet nextLinearized = (BitSet) linearized.clone();
          nextLinearized.set(entry.op);
          if (cache.add(new CacheKey(nextLinearized, next))) {
            stack.push(new Frame<>(entry, state, linearized));
            state = next;
            linearized = nextLinearized;
            lift(entry);
            if (op.status() == Operation.Status.OK) {
              remaining--;
            }
            entry = head.next;
            continue;
          }
        }
        entry = entry.next;
      } else {
        // A return: the operation it ends must be linearized before anything invoked after it.
        if (stack.isEmpty()) {
          return new Outcome(Verdict.NOT_LINEARIZABLE, steps);
        }
        Frame<S> top = stack.pop();
        state = top.stateBefore();
        linearized = top.linearizedBefore();
        unlift(top.call());
        if (ops.get(top.call().op).status() == Operation.Status.OK) {
          remaining++;
        }
        entry = top.call().next;
      }
    }
    return new Outcome(Verdict.LINEARIZABLE, steps);
  }

  /** The head (a sentinel) of the time-ordered list of calls and returns. */
  private static Node linkedEntries(List<Operation> ops) {
    List<Event> events = new ArrayList<>(2 * ops.size());
    for (int i = 0; i < ops.size(); i++) {
      Operation op = ops.get(i);
      events.add(new Event(i, true, op.invokeNanos()));
      events.add(new Event(i, false, op.completeNanos()));
    }
    events.sort(Comparator.comparingLong(Event::time).thenComparing(e -> !e.call()));
    Node head = new Node(-1, false);
    Node[] calls = new Node[ops.size()];
    Node tail = head;
    for (Event e : events) {
      Node n = new Node(e.op(), e.call());
      if (e.call()) {
        calls[e.op()] = n;
      } else {
        calls[e.op()].match = n;
      }
      tail.next = n;
      n.prev = tail;
      tail = n;
    }
    return head;
  }

  /** Unlinks a call and its return. A call is never last: its return follows it. */
  private static void lift(Node call) {
    call.prev.next = call.next;
    call.next.prev = call.prev;
    Node ret = call.match;
    ret.prev.next = ret.next;
    if (ret.next != null) {
      ret.next.prev = ret.prev;
    }
  }

  /** Relinks what {@link #lift} unlinked, in reverse order. */
  private static void unlift(Node call) {
    Node ret = call.match;
    ret.prev.next = ret;
    if (ret.next != null) {
      ret.next.prev = ret;
    }
    call.prev.next = call;
    call.next.prev = call;
  }

  /**
   * The history cut at the earliest completion after which it is not linearizable (found by
   * bisection: a cut of a linearizable history is linearizable), with its last operations.
   */
  private String smallestFailingPrefix(List<Operation> ops, long deadline) {
    List<Operation> completed = new ArrayList<>();
    for (Operation op : ops) {
      if (op.status() == Operation.Status.OK) {
        completed.add(op);
      }
    }
    completed.sort(Comparator.comparingLong(Operation::completeNanos));
    int lo = 0;
    int hi = completed.size() - 1; // the cut at the last completion is the whole history
    while (lo < hi) {
      int mid = (lo + hi) >>> 1;
      Verdict v = search(cut(ops, completed.get(mid).completeNanos()), deadline).verdict();
      if (v == Verdict.NOT_LINEARIZABLE) {
        hi = mid;
      } else {
        lo = mid + 1; // linearizable or unknown: not proven to fail here
      }
    }
    Operation last = completed.get(lo);
    List<Operation> prefix = cut(ops, last.completeNanos());
    prefix.sort(Comparator.comparingLong(Operation::invokeNanos));
    long origin = ops.stream().mapToLong(Operation::invokeNanos).min().orElse(0);
    StringBuilder sb = new StringBuilder();
    sb.append("smallest failing prefix: ").append(prefix.size())
        .append(" operations, cut at the reply of #").append(last.id())
        .append(" (still running there: indeterminate); no order explains it. Its last ")
        .append(Math.min(WINDOW, prefix.size())).append(" operations (times from the key's first invocation):");
    for (Operation op : prefix.subList(Math.max(0, prefix.size() - WINDOW), prefix.size())) {
      sb.append("\n  ").append(op.id() == last.id() ? "=> " : "   ").append('#').append(op.id()).append(' ')
          .append(op.describe(origin));
    }
    return sb.toString();
  }

  /** Operations invoked by {@code t}; those not completed by then indeterminate. */
  private static List<Operation> cut(List<Operation> ops, long t) {
    List<Operation> out = new ArrayList<>();
    for (Operation op : ops) {
      if (op.invokeNanos() > t) {
        continue;
      }
      if (op.status() == Operation.Status.OK && op.completeNanos() <= t) {
        out.add(op);
      } else if (op.command().mayWrite()) {
        out.add(op.asInfo());
      }
    }
    return out;
  }
}
