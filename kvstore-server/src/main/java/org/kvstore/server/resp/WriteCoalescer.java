package org.kvstore.server.resp;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.EventLoop;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Gathers the simple writes that the connections of one event loop receive in one loop turn and
 * writes them as one batch per {@link WriteTarget}, the way Redis writes (and with
 * {@code appendfsync always} fsyncs) its log once per event-loop turn for every client.
 *
 * <pre>
 *  channelRead (conn A: SET) ─┐
 *  channelRead (conn B: SET) ─┼─▶ open group of table t ──(task after the loop's I/O)──▶ write
 *  channelRead (conn C: SET) ─┘        one WriteBatch: one log record, one write() / one fsync
 *                                      ──▶ replies to A, B, C (each in its connection's order)
 * </pre>
 *
 * <p>A non-blocking target (a table without sync durability) is written on the event loop itself in
 * a task that runs after the turn's reads; a blocking one (sync durability, waits for an fsync) on
 * the worker pool, at most one group per target per event loop at a time: writes that arrive while a
 * group is being written wait in the next group, which goes as soon as the first one is done — so a
 * slower fsync makes bigger groups instead of more waiting threads. A group is closed early at
 * {@link #MAX_GROUP_REQUESTS} requests or {@link #MAX_GROUP_BYTES} bytes.
 *
 * <p>The connections of a group are busy (their {@link RespCommandHandler} executes nothing else)
 * until their replies are delivered, so per-connection reply order is kept.
 *
 * <p>Thread safety: one instance per event loop, confined to it (worker tasks hand results back to
 * the loop with {@link EventLoop#execute}).
 */
public final class WriteCoalescer {
  private static final Logger LOG = LoggerFactory.getLogger(WriteCoalescer.class);
  static final int MAX_GROUP_REQUESTS = 4096;
  static final long MAX_GROUP_BYTES = 4L << 20;

  /** The requests of one connection in a group. */
  private record Part(RespCommandHandler handler, ChannelHandlerContext ctx, List<RespRequest> requests) {}

  /** Writes to one target gathered in one turn. */
  private static final class Group {
    final List<Part> parts = new ArrayList<>();
    int requests;
    long bytes;
  }

  private final EventLoop loop;
  private final Executor workers;
  /** Groups being gathered, in first-arrival order of their targets. */
  private final Map<WriteTarget, Group> open = new LinkedHashMap<>();
  /** Blocking targets with a group being written on a worker. */
  private final Set<WriteTarget> writing = new HashSet<>();
  private boolean flushScheduled;

  /**
   * The coalescers of one server, one per event loop. Thread safety: thread-safe.
   */
  public static final class PerLoop {
    private final Executor workers;
    private final Map<EventLoop, WriteCoalescer> byLoop = new ConcurrentHashMap<>();

    /** {@code workers} runs the groups of blocking targets. */
    public PerLoop(Executor workers) {
      this.workers = workers;
    }

    WriteCoalescer of(EventLoop loop) {
      return byLoop.computeIfAbsent(loop, l -> new WriteCoalescer(l, workers));
    }
  }

  WriteCoalescer(EventLoop loop, Executor workers) {
    this.loop = loop;
    this.workers = workers;
  }

  /** Adds a connection's requests (all for {@code target}); their replies go to the handler later. */
  void add(WriteTarget target, RespCommandHandler handler, ChannelHandlerContext ctx, List<RespRequest> requests, long bytes) {
    Group g = open.computeIfAbsent(target, t -> new Group());
    g.parts.add(new Part(handler, ctx, requests));
    g.requests += requests.size();
    g.bytes += bytes;
    if (g.requests >= MAX_GROUP_REQUESTS || g.bytes >= MAX_GROUP_BYTES) {
      if (!writing.contains(target)) {
        open.remove(target);
        start(target, g);
      }
      // else: it goes when the running group finishes
    }
    if (!flushScheduled) {
      flushScheduled = true;
      loop.execute(this::flush);
    }
  }

  /** Starts every open group whose target is not busy. Runs after the loop turn's reads. */
  private void flush() {
    flushScheduled = false;
    if (open.isEmpty()) {
      return;
    }
    List<Map.Entry<WriteTarget, Group>> ready = new ArrayList<>();
    for (Map.Entry<WriteTarget, Group> e : open.entrySet()) {
      if (!writing.contains(e.getKey())) {
        ready.add(e);
      }
    }
    for (Map.Entry<WriteTarget, Group> e : ready) {
      open.remove(e.getKey());
      start(e.getKey(), e.getValue());
    }
  }

  private void start(WriteTarget target, Group g) {
    List<RespRequest> all = new ArrayList<>(g.requests);
    for (Part p : g.parts) {
      all.addAll(p.requests());
    }
    if (!target.blocking()) {
      deliver(g, target.write(all));
      return;
    }
    writing.add(target);
    try {
      workers.execute(() -> {
        List<RespMessage> replies;
        try {
          replies = target.write(all);
        } catch (RuntimeException | Error e) {
          // write() never throws; if it does anyway (an Error), the target must not stay busy forever.
          LOG.warn("coalesced write failed unexpectedly", e);
          replies = Collections.nCopies(all.size(),
              new RespMessage.ErrorReply("ERR internal error: " + e.getClass().getSimpleName()));
        }
        List<RespMessage> r = replies;
        loop.execute(() -> finished(target, g, r));
      });
    } catch (RejectedExecutionException e) {
      writing.remove(target);
      for (Part p : g.parts) {
        p.handler().rejected(p.ctx());
      }
    }
  }

  private void finished(WriteTarget target, Group g, List<RespMessage> replies) {
    writing.remove(target);
    Group next = open.remove(target);
    if (next != null) {
      start(target, next); // before delivering: the next fsync starts as early as possible
    }
    deliver(g, replies);
  }

  private static void deliver(Group g, List<RespMessage> replies) {
    int i = 0;
    for (Part p : g.parts) {
      int n = p.requests().size();
      p.handler().completed(p.ctx(), replies.subList(i, i + n));
      i += n;
    }
  }
}
