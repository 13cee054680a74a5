package org.kvstore.server.resp;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.EventLoop;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;

/**
 * Flushes the replies of one event loop's connections once per loop turn, after the turn has read
 * every ready connection, the way Redis writes its clients' replies just before it waits for events
 * again.
 *
 * <pre>
 *  loop turn:  read A ─ execute ─ queue A │ read B ─ execute ─ queue B │ ... │ task: flush A, B, ...
 * </pre>
 *
 * <p>Why: a flush is a write system call that, on loopback, also does the receiving side's work and
 * wakes the client. Flushing each connection as soon as its requests ran has a client with many
 * connections wake for the first reply and then for each next one; writing them together after the
 * reads lets it take many replies per wake-up. The delay is the rest of one loop turn.
 * See docs/decisions/0003-once-per-turn-flush.md.
 *
 * <p>Thread safety: confined to its event loop (every method runs there).
 */
public final class ReplyFlusher {
  private final EventLoop loop;
  private final List<ChannelHandlerContext> queued = new ArrayList<>();
  private boolean scheduled;

  /** The flushers of one server, one per event loop. Thread safety: thread-safe. */
  public static final class PerLoop {
    private final Map<EventLoop, ReplyFlusher> byLoop = new ConcurrentHashMap<>();

    ReplyFlusher of(EventLoop loop) {
      return byLoop.computeIfAbsent(loop, ReplyFlusher::new);
    }
  }

  private ReplyFlusher(EventLoop loop) {
    this.loop = loop;
  }

  /** Flushes {@code ctx} after this loop turn's reads. REQUIRES: called on the loop. */
  void flushLater(ChannelHandlerContext ctx) {
    queued.add(ctx);
    if (!scheduled) {
      scheduled = true;
      try {
        loop.execute(this::flushAll);
      } catch (RejectedExecutionException e) {
        flushAll(); // the loop is shutting down: no later turn to wait for
      }
    }
  }

  private void flushAll() {
    scheduled = false;
    for (ChannelHandlerContext ctx : queued) {
      ctx.flush();
    }
    queued.clear();
  }
}
