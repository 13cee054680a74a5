package org.kvstore.testkit.history;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Concurrent clients running random single-key operations (GET, SET, SET NX, SET XX, DEL, INCR,
 * APPEND) against a store and recording them in a {@link HistoryRecorder}, for
 * {@link LinearizabilityChecker}.
 *
 * <p>Keys: the workload spreads over {@code keySlots} slots; each slot's key changes after
 * {@code opsPerKey} operations ({@code prefix<slot>.<generation>}), like Jepsen's independent
 * keys, so that no key's history grows past what the checker searches quickly, while every
 * key starts from "missing" and never needs a starting state. A slot's key also changes once
 * {@value #MAX_INDETERMINATE_WRITES} writes on it turned indeterminate: the checker must try each
 * such write at every later point and in every order with the others, so that proving a key's
 * history wrong takes millions of steps with five of them and exceeds any budget with a dozen,
 * while the operations that follow them on a new key cost nothing extra. (Operations already
 * under way on the old key still land there: at most one per other client.)
 *
 * <p>Values are unique per write (the process and its sequence number), three in four of them
 * integers so that INCR mostly succeeds, the others not; appended suffixes are never digits. A client whose
 * operation threw is closed, the operation recorded as failed ({@link NotDoneException}) or else
 * indeterminate, and a new client opened (retried every 20 ms while the store is unreachable).
 *
 * <p>Every loop stops by itself: at {@code duration} or after {@code maxOps} operations.
 *
 * <p>Thread safety: {@link #run} once; it starts and joins its own threads.
 */
public final class RegisterWorkload {
  /** Indeterminate writes on one key after which its slot moves to a new key. */
  public static final int MAX_INDETERMINATE_WRITES = 3;

  private final int clients;
  private final int keySlots;
  private final int opsPerKey;
  private final Duration duration;
  private final long maxOps;
  private final String keyPrefix;
  private final long seed;

  private final Slot[] slots;
  private final AtomicLong invoked = new AtomicLong();

  /**
   * @param opsPerKey operations per key before its slot moves to a new key (at most a few hundred)
   */
  public RegisterWorkload(int clients, int keySlots, int opsPerKey, Duration duration, long maxOps,
      String keyPrefix, long seed) {
    if (clients < 1 || keySlots < 1 || opsPerKey < 1 || maxOps < 1) {
      throw new IllegalArgumentException("clients, keySlots, opsPerKey and maxOps must be positive");
    }
    this.clients = clients;
    this.keySlots = keySlots;
    this.opsPerKey = opsPerKey;
    this.duration = duration;
    this.maxOps = maxOps;
    this.keyPrefix = keyPrefix;
    this.seed = seed;
    this.slots = new Slot[keySlots];
    for (int i = 0; i < keySlots; i++) {
      slots[i] = new Slot(keyPrefix + i + ".");
    }
  }

  /** Runs the clients to the end and returns the history. */
  public List<Operation> run(RegisterClient.Factory factory) throws InterruptedException {
    HistoryRecorder recorder = new HistoryRecorder();
    long deadline = System.nanoTime() + duration.toNanos();
    List<Thread> threads = new ArrayList<>();
    List<Throwable> crashed = new ArrayList<>();
    for (int p = 0; p < clients; p++) {
      int process = p;
      Thread t = new Thread(() -> {
        try {
          runClient(process, factory, recorder, deadline);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        } catch (RuntimeException | Error e) {
          synchronized (crashed) {
            crashed.add(e);
          }
        }
      }, "register-workload-" + p);
      t.start();
      threads.add(t);
    }
    for (Thread t : threads) {
      t.join();
    }
    if (!crashed.isEmpty()) {
      throw new IllegalStateException("a workload thread failed", crashed.get(0));
    }
    return recorder.history();
  }

  private void runClient(int process, RegisterClient.Factory factory, HistoryRecorder recorder, long deadline)
      throws InterruptedException {
    Random rnd = new Random(seed * 1_000_003L + process);
    RegisterClient client = null;
    long seq = 0;
    try {
      while (System.nanoTime() < deadline) {
        if (client == null) {
          try {
            client = factory.open();
          } catch (Exception e) {
            Thread.sleep(20); // the store is down (restarting): try again
            continue;
          }
        }
        if (invoked.incrementAndGet() > maxOps) {
          break;
        }
        Slot slot = slots[rnd.nextInt(keySlots)];
        String key = slot.nextKey();
        Command command = pick(rnd);
        seq++;
        String argument = argument(command, process, seq, rnd);
        HistoryRecorder.Invocation inv = recorder.invoke(process, key, command, argument);
        try {
          inv.ok(client.execute(command, key, argument));
        } catch (NotDoneException e) {
          inv.fail();
          client.close();
          client = null;
        } catch (Exception e) {
          inv.info();
          if (command.mayWrite()) {
            slot.indeterminateWrite(key);
          }
          client.close();
          client = null;
        }
      }
    } finally {
      if (client != null) {
        client.close();
      }
    }
  }

  /**
   * One key slot: its current key and how many operations and indeterminate writes that key had.
   *
   * <p>Thread safety: synchronized on itself.
   */
  private final class Slot {
    private final String prefix;
    private int generation;
    private int ops;
    private int indeterminateWrites;

    Slot(String prefix) {
      this.prefix = prefix;
    }

    synchronized String nextKey() {
      if (ops == opsPerKey) {
        generation++;
        ops = 0;
        indeterminateWrites = 0;
      }
      ops++;
      return prefix + generation;
    }

    /** A write on {@code key} turned indeterminate: at the limit, the slot moves on to a new key. */
    synchronized void indeterminateWrite(String key) {
      if (key.equals(prefix + generation) && ++indeterminateWrites >= MAX_INDETERMINATE_WRITES) {
        ops = opsPerKey;
      }
    }
  }

  private static Command pick(Random rnd) {
    int r = rnd.nextInt(100);
    if (r < 34) {
      return Command.GET;
    } else if (r < 54) {
      return Command.SET;
    } else if (r < 62) {
      return Command.SET_NX;
    } else if (r < 69) {
      return Command.SET_XX;
    } else if (r < 77) {
      return Command.DEL;
    } else if (r < 94) {
      return Command.INCR;
    }
    return Command.APPEND;
  }

  private static String argument(Command command, int process, long seq, Random rnd) {
    if (command == Command.APPEND) {
      return "+" + process + "." + seq;
    }
    if (!command.hasArgument()) {
      return null;
    }
    return rnd.nextInt(4) != 0 ? Long.toString((process + 1) * 1_000_000_000L + seq * 1000) : "v" + process + "." + seq;
  }
}
