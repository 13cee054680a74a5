package org.kvstore.server.command;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import org.kvstore.Table;

/**
 * Gathers the plain puts that the connections of one event loop receive in one loop turn and hands
 * them to the {@link PutWriter} as one batch per table, the way Redis writes (and with
 * {@code appendfsync always} fsyncs) its log once per event-loop turn for every client.
 * See docs/decisions/0002-write-coalescing.md.
 *
 * <pre>
 *  conn A: SET ─┐
 *  conn B: SET ─┼─▶ open group of table t ──(task after the loop's I/O)──▶ PutWriter.write
 *  conn C: SET ─┘        one WriteBatch: one log record, one write() / one fsync
 *                        ──▶ A, B, C told, each in its connection's order
 * </pre>
 *
 * <p>A non-blocking table (no sync durability) is written on the event loop itself, in a task that
 * runs after the turn's reads; a blocking one (sync durability: waits for an fsync) on the worker
 * pool, at most one group per table per event loop at a time: puts that arrive while a group is
 * being written wait in the next group, which goes as soon as the first one is done, so a slower
 * fsync makes bigger groups instead of more waiting threads. A group is closed early at
 * {@link #MAX_GROUP_PUTS} puts or {@link #MAX_GROUP_BYTES} bytes.
 *
 * <p>A front end hands over a {@link Pending} per connection and keeps that connection from running
 * anything else until it is told the outcome, so per-connection reply order is kept. Nothing here
 * knows a protocol.
 *
 * <p>Thread safety: one instance per event loop, confined to it (worker tasks hand results back to
 * the loop through its executor).
 */
public final class WriteCoalescer {
  static final int MAX_GROUP_PUTS = 4096;
  static final long MAX_GROUP_BYTES = 4L << 20;

  /**
   * The puts of one connection in a group, and where their outcome goes. Called on the event loop.
   */
  public interface Pending extends PutWriter.Puts {
    /**
     * The puts were written, or some failed: {@code failures} is null when all were written, else
     * {@code failures[offset + i]} is the failure of put {@code i} (null: written).
     */
    void written(RuntimeException[] failures, int offset);

    /** The worker pool refused the write (the server is shutting down); nothing was written. */
    void rejected();
  }

  /** Puts to one table gathered in one turn. */
  private static final class Group {
    final boolean blocking;
    final List<Pending> parts = new ArrayList<>();
    int puts;
    long bytes;

    Group(boolean blocking) {
      this.blocking = blocking;
    }
  }

  private final Executor loop;
  private final Executor workers;
  private final PutWriter writer;
  /** Groups being gathered, in first-arrival order of their tables. */
  private final Map<Table, Group> open = new LinkedHashMap<>();
  /** Blocking tables with a group being written on a worker. */
  private final Set<Table> writing = new HashSet<>();
  private boolean flushScheduled;

  /** The coalescers of one server, one per event loop. Thread safety: thread-safe. */
  public static final class PerLoop {
    private final Executor workers;
    private final PutWriter writer;
    private final Map<Executor, WriteCoalescer> byLoop = new ConcurrentHashMap<>();

    /** {@code workers} runs the groups of blocking tables; {@code writer} writes every group. */
    public PerLoop(Executor workers, PutWriter writer) {
      this.workers = workers;
      this.writer = writer;
    }

    /** The coalescer of event loop {@code loop} (created on first use). */
    public WriteCoalescer of(Executor loop) {
      return byLoop.computeIfAbsent(loop, l -> new WriteCoalescer(l, workers, writer));
    }
  }

  WriteCoalescer(Executor loop, Executor workers, PutWriter writer) {
    this.loop = loop;
    this.workers = workers;
    this.writer = writer;
  }

  /**
   * Adds a connection's puts to {@code table} ({@code blocking}: it has sync durability) of about
   * {@code bytes} bytes; their outcome goes to {@code pending} later, on this loop. Call on the loop.
   */
  public void add(Table table, boolean blocking, Pending pending, long bytes) {
    Group g = open.computeIfAbsent(table, t -> new Group(blocking));
    g.parts.add(pending);
    g.puts += pending.size();
    g.bytes += bytes;
    if (g.puts >= MAX_GROUP_PUTS || g.bytes >= MAX_GROUP_BYTES) {
      if (!writing.contains(table)) {
        open.remove(table);
        start(table, g);
      }
      // else: it goes when the running group finishes
    }
    if (!flushScheduled) {
      flushScheduled = true;
      loop.execute(this::flush);
    }
  }

  /** Starts every open group whose table is not busy. Runs after the loop turn's reads. */
  private void flush() {
    flushScheduled = false;
    if (open.isEmpty()) {
      return;
    }
    List<Map.Entry<Table, Group>> ready = new ArrayList<>();
    for (Map.Entry<Table, Group> e : open.entrySet()) {
      if (!writing.contains(e.getKey())) {
        ready.add(e);
      }
    }
    for (Map.Entry<Table, Group> e : ready) {
      open.remove(e.getKey());
      start(e.getKey(), e.getValue());
    }
  }

  private void start(Table table, Group g) {
    if (!g.blocking) {
      deliver(g, writer.write(table, g.parts, g.puts));
      return;
    }
    writing.add(table);
    try {
      workers.execute(() -> {
        RuntimeException[] failures;
        try {
          failures = writer.write(table, g.parts, g.puts);
        } catch (RuntimeException | Error e) {
          // write() returns failures; should it throw anyway (an Error), the table must not stay
          // busy forever and each connection still gets an answer (the front end logs the cause).
          failures = new RuntimeException[g.puts];
          Arrays.fill(failures, new IllegalStateException("coalesced write failed", e));
        }
        RuntimeException[] f = failures;
        loop.execute(() -> finished(table, g, f));
      });
    } catch (RejectedExecutionException e) {
      writing.remove(table);
      for (Pending p : g.parts) {
        p.rejected();
      }
    }
  }

  private void finished(Table table, Group g, RuntimeException[] failures) {
    writing.remove(table);
    Group next = open.remove(table);
    if (next != null) {
      start(table, next); // before delivering: the next fsync starts as early as possible
    }
    deliver(g, failures);
  }

  private static void deliver(Group g, RuntimeException[] failures) {
    int at = 0;
    for (Pending p : g.parts) {
      p.written(failures, at);
      at += p.size();
    }
  }
}
