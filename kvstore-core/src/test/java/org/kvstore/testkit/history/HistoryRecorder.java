package org.kvstore.testkit.history;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Records a history from concurrent clients: call {@link #invoke} just before sending a request
 * and then exactly one of {@link Invocation#ok}, {@link Invocation#fail} or {@link Invocation#info}
 * just after its reply (or its failure) arrived. The times are taken inside these calls, so the
 * recorded interval always contains the real one.
 *
 * <p>An invocation never completed (its thread still waiting when {@link #history()} is called)
 * is indeterminate in the history.
 *
 * <p>Thread safety: thread-safe; each {@link Invocation} belongs to the thread that invoked it.
 */
public final class HistoryRecorder {
  private final AtomicInteger nextId = new AtomicInteger();
  private final Queue<Invocation> invocations = new ConcurrentLinkedQueue<>();

  /** Starts an operation; {@code argument} is {@code null} for commands without one. */
  public Invocation invoke(int process, String key, Command command, String argument) {
    Invocation inv = new Invocation(Operation.info(nextId.getAndIncrement(), process, key, command, argument,
        System.nanoTime()));
    invocations.add(inv);
    return inv;
  }

  /** Every operation so far, in invocation order; unfinished ones indeterminate. */
  public List<Operation> history() {
    List<Operation> ops = new ArrayList<>();
    for (Invocation inv : invocations) {
      ops.add(inv.current());
    }
    ops.sort(Comparator.comparingInt(Operation::id));
    return ops;
  }

  /** One operation in flight. */
  public static final class Invocation {
    private final Operation invoked;
    private volatile Operation completed;

    private Invocation(Operation invoked) {
      this.invoked = invoked;
    }

    /** The reply arrived with {@code result} (typed as {@link Command} says). */
    public void ok(Object result) {
      long now = System.nanoTime();
      complete(new Operation(invoked.id(), invoked.process(), invoked.key(), invoked.command(),
          invoked.argument(), invoked.invokeNanos(), now, Operation.Status.OK, result));
    }

    /** The operation definitely had no effect. */
    public void fail() {
      long now = System.nanoTime();
      complete(new Operation(invoked.id(), invoked.process(), invoked.key(), invoked.command(),
          invoked.argument(), invoked.invokeNanos(), now, Operation.Status.FAIL, null));
    }

    /** Whether the operation took effect is unknown (timeout, connection lost). */
    public void info() {
      complete(invoked);
    }

    private void complete(Operation op) {
      if (completed != null) {
        throw new IllegalStateException("completed twice: " + completed + " then " + op);
      }
      completed = op;
    }

    Operation current() {
      Operation done = completed;
      return done != null ? done : invoked;
    }
  }
}
