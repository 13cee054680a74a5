package org.kvstore.server.resp;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelConfig;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.util.ReferenceCountUtil;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.BiFunction;
import java.util.function.BiPredicate;
import org.kvstore.PutOptions;
import org.kvstore.Table;
import org.kvstore.server.command.WriteCoalescer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs the requests of one connection in order and writes their replies in order.
 *
 * <pre>
 *  RespDecoder ──▶ channelRead: resolve the command (RespCommandTable), queue (FIFO)
 *              ──▶ drain ──┬─ plain SET, table resolved: this event loop's WriteCoalescer
 *                          │  (one PutWriter batch per table per loop turn)
 *                          ├─ run of >= 4 quick reads (a pipeline of GETs):
 *                          │  a ReadOffload helper when one is free, else
 *                          │  this loop; 16 at a time (GETs as a multi-get)
 *                          ├─ quick request: RespCommandExecutor on the event loop
 *                          ├─ cluster node, run of plain GETs (SETs): one worker
 *                          │  task, one read barrier (Raft entry) per shard
 *                          └─ may block: one task on the worker pool;
 *                             its reply comes back to the event loop,
 *                             then draining continues
 *              ──▶ replies encoded into one buffer ──▶ ReplyFlusher: one flush per loop turn
 * </pre>
 *
 * <p>At most one request (or one run of SETs or reads) of a connection is outstanding at any time,
 * so replies are never reordered even though some run on workers or in a coalesced group
 * (pipelining).
 *
 * <p>Back-pressure: draining pauses while the channel is not writable (the client does not read
 * its replies), and reading pauses while the channel is not writable or the queue holds more than
 * {@link #MAX_PENDING_REQUESTS} requests or {@link #MAX_PENDING_BYTES} bytes; both resume when the
 * condition clears. So a connection holds at most one read's worth of requests plus one
 * write-buffer high-water mark of replies, and one reply: a large one ({@link ReplyArrayBuilder}) is
 * bounded by the client's output buffer limit, which the channel's
 * {@link org.kvstore.server.output.OutputGuard} enforces (and which disconnects a client that stays
 * paused).
 *
 * <p>Thread safety: confined to the channel's event loop; worker and helper tasks only call the
 * {@link RespCommandExecutor} and hand the replies back to the event loop.
 */
public final class RespCommandHandler extends ChannelInboundHandlerAdapter {
  private static final Logger LOG = LoggerFactory.getLogger(RespCommandHandler.class);
  static final int MAX_PENDING_REQUESTS = 1024;
  static final long MAX_PENDING_BYTES = 16L << 20;
  static final int MAX_BATCH = 512;
  /**
   * Quick reads executed together ({@link RespCommandExecutor#executeReads}): enough keys for their
   * lookups' cache misses to overlap, few enough that a run stops soon after its replies pass
   * {@link #MAX_OFFLOADED_REPLY_BYTES}.
   */
  static final int READ_CHUNK = 16;
  /** An offloaded run of reads stops once its replies reach this size (the low water mark). */
  static final long MAX_OFFLOADED_REPLY_BYTES = 256 * 1024;

  private final RespSession session;
  private final RespCommandExecutor executor;
  private final Executor workers;
  private final WriteCoalescer.PerLoop coalescers;
  private final ReplyFlusher.PerLoop flushers;
  /** This connection's event loop's flusher, resolved on first use. */
  private ReplyFlusher flusher;
  /** Helpers for runs of quick reads, or null to run every quick request on the loop. */
  private final ReadOffload reads;
  /** This connection's event loop's coalescer, resolved on first use. */
  private WriteCoalescer coalescer;
  private final ArrayDeque<Object> pending = new ArrayDeque<>();
  private long pendingBytes;
  /** A worker is executing a request of this connection. */
  private boolean busy;
  /** After QUIT or a protocol error: nothing more is executed. */
  private boolean closing;
  /** Replies encoded but not yet written: one buffer for a run of replies, not one write each. */
  private ByteBuf out;
  static final int OUT_CHUNK = 64 * 1024;
  /**
   * A cluster node's run of SETs (or GETs) holds at most this many request bytes: a run's SETs of
   * one shard become one Raft entry, which must stay far below gRPC's message limit; the shard's
   * group commit batches about this much too.
   */
  static final long MAX_CLUSTER_RUN_BYTES = 1 << 20;

  public RespCommandHandler(
      RespSession session, RespCommandExecutor executor, Executor workers,
      WriteCoalescer.PerLoop coalescers, ReplyFlusher.PerLoop flushers, ReadOffload reads) {
    this.session = session;
    this.executor = executor;
    this.workers = workers;
    this.coalescers = coalescers;
    this.flushers = flushers;
    this.reads = reads;
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    if (closing) {
      ReferenceCountUtil.release(msg);
      return;
    }
    if (msg instanceof RespRequest r) {
      executor.resolve(r);
    }
    pending.add(msg);
    pendingBytes += bytesOf(msg);
    // A quick read waits for the end of this socket read: the decoder hands requests over one at a
    // time, and only then does the queue show whether they form a run worth a read helper.
    if (!busy && !(reads != null && msg instanceof RespRequest r && executor.offloadable(session, r))) {
      drain(ctx);
    }
    updateAutoRead(ctx);
  }

  @Override
  public void channelReadComplete(ChannelHandlerContext ctx) {
    if (!busy) {
      drain(ctx);
    }
    writeOut(ctx);
    if (flusher == null) {
      flusher = flushers.of(ctx.channel().eventLoop());
    }
    flusher.flushLater(ctx);
    ctx.fireChannelReadComplete();
  }

  @Override
  public void handlerAdded(ChannelHandlerContext ctx) {
    session.streamer(new ReplyStreamer(ctx, session.replyBudget()));
  }

  @Override
  public void handlerRemoved(ChannelHandlerContext ctx) {
    if (out != null) {
      out.release();
      out = null;
    }
  }

  @Override
  public void channelWritabilityChanged(ChannelHandlerContext ctx) {
    if (ctx.channel().isWritable() && !busy) {
      drain(ctx);
      flush(ctx);
    }
    updateAutoRead(ctx);
    ctx.fireChannelWritabilityChanged();
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) {
    closing = true;
    pending.clear();
    pendingBytes = 0;
    executor.closed(session);
    ctx.fireChannelInactive();
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    // Usually "connection reset by peer"; nothing to answer.
    LOG.debug("closing {} after {}", ctx.channel().remoteAddress(), cause.toString());
    ctx.close();
  }

  private void drain(ChannelHandlerContext ctx) {
    while (!busy && !closing) {
      if (!ctx.channel().isWritable()) {
        flush(ctx); // let the outbound buffer drain; writabilityChanged resumes us
        break;
      }
      Object next = pending.poll();
      if (next == null) {
        break;
      }
      pendingBytes -= bytesOf(next);
      if (next instanceof RespProtocolError error) {
        closing = true;
        pending.clear();
        pendingBytes = 0;
        write(ctx, executor.error("ERR Protocol error: " + error.message()));
        closeAfterReplies(ctx);
        break;
      }
      RespRequest request = (RespRequest) next;
      Table table = executor.coalescingTable(session, request);
      if (table != null) {
        coalesce(ctx, request, table);
        break;
      }
      if (!executor.mayBlock(session, request)) {
        if (!pending.isEmpty() && executor.offloadable(session, request)) {
          if (reads != null && pending.size() >= ReadOffload.MIN_RUN - 1) {
            List<RespRequest> run = takeReadRun(request);
            if (run != null) {
              if (offload(ctx, run)) {
                break;
              }
              continue;
            }
          }
          // No helper free (or none configured): this loop reads the run, a chunk at a time.
          List<RespRequest> run = takeQuickRun(request, READ_CHUNK);
          List<RespMessage> replies = executeRun(run);
          requeueUnanswered(run, replies.size());
          for (RespMessage m : replies) {
            reply(ctx, m);
          }
          continue;
        }
        reply(ctx, execute(request));
        continue;
      }
      if (executor.clusterBatchableGet(session, request) && pending.peek() instanceof RespRequest more
          && executor.clusterBatchableGet(session, more)) {
        submitClusterRun(ctx, takeClusterRun(request, executor::clusterBatchableGet), executor::executeClusterGets);
        break;
      }
      if (executor.clusterBatchableSet(session, request)) {
        writeClusterSets(ctx, takeClusterRun(request, executor::clusterBatchableSet));
        break;
      }
      submit(ctx, request);
    }
    updateAutoRead(ctx);
  }

  /**
   * {@code first} and the requests right after it that {@code same} accepts, up to
   * {@link #MAX_BATCH} and {@link #MAX_CLUSTER_RUN_BYTES}, taken from the queue.
   */
  private List<RespRequest> takeClusterRun(RespRequest first, BiPredicate<RespSession, RespRequest> same) {
    List<RespRequest> run = new ArrayList<>();
    run.add(first);
    long bytes = bytesOf(first);
    while (run.size() < MAX_BATCH && pending.peek() instanceof RespRequest more && same.test(session, more)
        && bytes + bytesOf(more) <= MAX_CLUSTER_RUN_BYTES) {
      pending.poll();
      long b = bytesOf(more);
      pendingBytes -= b;
      bytes += b;
      run.add(more);
    }
    return run;
  }

  /**
   * A cluster node's pipelined run of GETs or SETs as one worker task: one read barrier, or one
   * Raft entry, per shard for the run ({@link RespCommandExecutor#executeClusterGets},
   * {@link RespCommandExecutor#executeClusterSetsAsync}).
   */
  private void submitClusterRun(ChannelHandlerContext ctx, List<RespRequest> run,
      BiFunction<RespSession, List<RespRequest>, List<RespMessage>> execute) {
    busy = true;
    writeOut(ctx);
    try {
      workers.execute(() -> {
        List<RespMessage> replies;
        try {
          replies = execute.apply(session, run);
        } catch (RuntimeException e) {
          RespMessage failure = executor.failed(session, e);
          replies = Collections.nCopies(run.size(), failure);
        }
        List<RespMessage> done = replies;
        ctx.executor().execute(() -> completed(ctx, done));
      });
    } catch (RejectedExecutionException e) {
      rejected(ctx);
    }
  }

  /**
   * A cluster node's SETs without conditions (one, or a pipelined run): proposed from this event loop where the
   * shard's leader is here and the keys' latches are free, else on a worker
   * ({@link RespCommandExecutor#executeClusterSetsAsync}); the connection stays busy until the
   * replies come back through {@link #completed}. A write waits for no worker: a waiting worker
   * would cost two thread hand-offs per write on the path every cluster write takes.
   */
  private void writeClusterSets(ChannelHandlerContext ctx, List<RespRequest> run) {
    busy = true;
    writeOut(ctx);
    CompletableFuture<List<RespMessage>> replies;
    try {
      replies = executor.executeClusterSetsAsync(session, run, workers);
    } catch (RejectedExecutionException e) {
      rejected(ctx);
      return;
    }
    replies.whenComplete((done, e) -> {
      List<RespMessage> out = e == null ? done : Collections.nCopies(run.size(), executor.failed(session, e));
      try {
        ctx.executor().execute(() -> completed(ctx, out));
      } catch (RejectedExecutionException shuttingDown) {
        for (RespMessage r : out) {
          RespMessage.releaseEncoded(r);
        }
      }
    });
  }

  /**
   * Hands {@code request} and the plain SETs right after it to this event loop's coalescer; the
   * connection stays busy until their replies come back through {@link #completed}.
   */
  private void coalesce(ChannelHandlerContext ctx, RespRequest request, Table table) {
    List<RespRequest> run = new ArrayList<>();
    run.add(request);
    long bytes = bytesOf(request);
    while (run.size() < MAX_BATCH
        && pending.peek() instanceof RespRequest more
        && executor.coalescingTable(session, more) == table) {
      pending.poll();
      long b = bytesOf(more);
      pendingBytes -= b;
      bytes += b;
      run.add(more);
    }
    busy = true;
    if (coalescer == null) {
      coalescer = coalescers.of(ctx.channel().eventLoop());
    }
    coalescer.add(table, session.cachedTableSync(), new CoalescedSets(ctx, run), bytes);
  }

  /** A run of plain SETs of this connection in a coalesced group; its outcome becomes replies. */
  private final class CoalescedSets implements WriteCoalescer.Pending {
    private final ChannelHandlerContext ctx;
    private final List<RespRequest> run;
    /** When the run was handed to the coalescer: its SETs' time in INFO commandstats counts from here. */
    private final long startNanos = System.nanoTime();

    CoalescedSets(ChannelHandlerContext ctx, List<RespRequest> run) {
      this.ctx = ctx;
      this.run = run;
    }

    @Override
    public int size() {
      return run.size();
    }

    @Override
    public byte[] key(int i) {
      return run.get(i).arg(1);
    }

    @Override
    public byte[] value(int i) {
      return run.get(i).arg(2);
    }

    @Override
    public PutOptions options(int i) {
      return run.get(i).putOptions();
    }

    @Override
    public void written(RuntimeException[] failures, int offset) {
      executor.setsWritten(run.size(), System.nanoTime() - startNanos);
      if (failures == null) {
        completed(ctx, Collections.nCopies(run.size(), RespMessage.OK));
        return;
      }
      List<RespMessage> replies = new ArrayList<>(run.size());
      for (int i = 0; i < run.size(); i++) {
        replies.add(executor.setReply(session, failures[offset + i]));
      }
      completed(ctx, replies);
    }

    @Override
    public void rejected() {
      RespCommandHandler.this.rejected(ctx);
    }
  }

  /**
   * {@code first} and the quick reads right after it (up to {@link #MAX_BATCH}), taken from the
   * queue under a read-helper permit; or null (nothing taken) when fewer than
   * {@link ReadOffload#MIN_RUN} reads are queued or every helper is busy.
   */
  private List<RespRequest> takeReadRun(RespRequest first) {
    int n = 1;
    for (Object o : pending) {
      if (n >= ReadOffload.MIN_RUN || !(o instanceof RespRequest r) || !executor.offloadable(session, r)) {
        break;
      }
      n++;
    }
    if (n < ReadOffload.MIN_RUN || !reads.tryAcquire()) {
      return null;
    }
    return takeQuickRun(first, MAX_BATCH);
  }

  /**
   * {@code first} and the quick reads right after it, up to {@code max} in all, taken from the
   * queue.
   */
  private List<RespRequest> takeQuickRun(RespRequest first, int max) {
    List<RespRequest> run = new ArrayList<>(Math.min(max, 1 + pending.size()));
    run.add(first);
    while (run.size() < max
        && pending.peek() instanceof RespRequest more && executor.offloadable(session, more)) {
      pending.poll();
      pendingBytes -= bytesOf(more);
      run.add(more);
    }
    return run;
  }

  /**
   * Executes a run of quick reads {@link #READ_CHUNK} at a time ({@link RespCommandExecutor#executeReads}),
   * and stops once the replies reach {@link #MAX_OFFLOADED_REPLY_BYTES}: the replies of a prefix
   * of {@code run}, the rest for {@link #requeueUnanswered} (replies computed past the limit are
   * dropped; those reads run again when the loop gets to them).
   */
  private List<RespMessage> executeRun(List<RespRequest> run) {
    List<RespMessage> replies = new ArrayList<>(run.size());
    long bytes = 0;
    for (int from = 0; from < run.size() && bytes < MAX_OFFLOADED_REPLY_BYTES; ) {
      int to = Math.min(run.size(), from + READ_CHUNK);
      for (RespMessage m : executeReads(run.subList(from, to))) {
        if (bytes >= MAX_OFFLOADED_REPLY_BYTES) {
          break;
        }
        replies.add(m);
        bytes += RespEncoder.encodedSizeEstimate(m);
      }
      from = to;
    }
    return replies;
  }

  /** Puts the requests of {@code run} from {@code answered} on back at the head of the queue, in order. */
  private void requeueUnanswered(List<RespRequest> run, int answered) {
    for (int i = run.size() - 1; i >= answered; i--) {
      RespRequest r = run.get(i);
      pending.addFirst(r);
      pendingBytes += bytesOf(r);
    }
  }

  /**
   * Runs {@code run} on a read helper (its permit taken); the connection stays busy until the
   * replies come back through {@link #completed}. Returns false when the helpers are shutting down
   * and the reads ran here instead.
   */
  private boolean offload(ChannelHandlerContext ctx, List<RespRequest> run) {
    busy = true;
    try {
      reads.submit(() -> {
        // Stops early once the replies are big: the loop writes them, and the rest of the run goes
        // back to the queue, to wait there while the channel is not writable (back-pressure).
        List<RespMessage> replies = executeRun(run);
        try {
          ctx.executor().execute(() -> readsCompleted(ctx, run, replies));
        } catch (RejectedExecutionException e) {
          LOG.debug("dropping the replies of {} reads: the event loop has stopped", replies.size());
        }
      });
      return true;
    } catch (RejectedExecutionException e) {
      busy = false;
      for (RespRequest r : run) {
        reply(ctx, execute(r));
      }
      return false;
    }
  }

  /** The worker pool refused a task (shutdown): answer and close. */
  private void rejected(ChannelHandlerContext ctx) {
    busy = false;
    closing = true;
    write(ctx, executor.error("ERR server is shutting down"));
    closeAfterReplies(ctx);
  }

  private void submit(ChannelHandlerContext ctx, RespRequest request) {
    busy = true;
    // The replies before it go to the channel first: the command may send its own while it runs
    // (ReplyStreamer).
    writeOut(ctx);
    try {
      workers.execute(() -> {
        List<RespMessage> replies = List.of(execute(request));
        ctx.executor().execute(() -> completed(ctx, replies));
      });
    } catch (RejectedExecutionException e) {
      rejected(ctx);
    }
  }

  /**
   * Replies of the first {@code replies.size()} reads of an offloaded {@code run}; the reads not
   * executed go back to the head of the queue, in order.
   */
  private void readsCompleted(ChannelHandlerContext ctx, List<RespRequest> run, List<RespMessage> replies) {
    if (!closing) {
      requeueUnanswered(run, replies.size());
    }
    completed(ctx, replies);
  }

  /** Replies of this connection's requests that ran elsewhere; continues with the next requests. */
  private void completed(ChannelHandlerContext ctx, List<RespMessage> replies) {
    busy = false;
    if (!ctx.channel().isActive()) {
      for (RespMessage r : replies) {
        RespMessage.releaseEncoded(r);
      }
      return;
    }
    for (RespMessage r : replies) {
      reply(ctx, r);
    }
    drain(ctx);
    flush(ctx);
  }

  /** {@code request} run by the executor; a failure that escapes it (a bug) becomes its error reply. */
  private RespMessage execute(RespRequest request) {
    try {
      return executor.execute(session, request);
    } catch (RuntimeException | Error e) {
      return executor.failed(session, e);
    }
  }

  /** A run of quick reads; a failure that escapes the executor becomes an error reply to each. */
  private List<RespMessage> executeReads(List<RespRequest> run) {
    try {
      return executor.executeReads(session, run);
    } catch (RuntimeException | Error e) {
      return Collections.nCopies(run.size(), executor.failed(session, e));
    }
  }

  private void reply(ChannelHandlerContext ctx, RespMessage message) {
    if (closing) {
      RespMessage.releaseEncoded(message);
      return;
    }
    write(ctx, message);
    if (session.closeRequested()) {
      closing = true;
      pending.clear();
      pendingBytes = 0;
      closeAfterReplies(ctx);
    }
  }

  /** Encodes a reply into the pending output; hands full chunks to the channel (no flush). */
  private void write(ChannelHandlerContext ctx, RespMessage message) {
    if (message instanceof RespMessage.EncodedArray e) {
      writeEncoded(ctx, e);
      return;
    }
    if (out == null) {
      out = ctx.alloc().ioBuffer(Math.max(4096, RespEncoder.sizeHint(message)));
    }
    RespEncoder.encode(message, session.protocolVersion(), out);
    // Given back before the copy reaches the channel, which counts it: never counted twice.
    RespMessage.releaseEncoded(message);
    if (out.readableBytes() >= OUT_CHUNK) {
      ctx.write(out, ctx.voidPromise());
      out = null;
    }
  }

  /**
   * Hands a reply built encoded to the channel part by part, without copying it into one buffer.
   * Its reservation is given back first: the channel counts the parts as they reach it, and a reply
   * over half the limit must not count twice.
   */
  private void writeEncoded(ChannelHandlerContext ctx, RespMessage.EncodedArray e) {
    e.release();
    if (e.count() != RespMessage.EncodedArray.HEADER_SENT) {
      if (out == null) {
        out = ctx.alloc().ioBuffer(4096);
      }
      RespEncoder.writeArrayHeader(out, e.count());
    }
    writeOut(ctx);
    for (int i = 0; i < e.parts().size(); i++) {
      ctx.write(Unpooled.wrappedBuffer(e.parts().get(i), 0, e.partLength(i)), ctx.voidPromise());
    }
  }

  /** Writes the pending output and flushes the channel. */
  private void flush(ChannelHandlerContext ctx) {
    writeOut(ctx);
    ctx.flush();
  }

  /** Hands the replies encoded so far to the channel, without flushing it. */
  private void writeOut(ChannelHandlerContext ctx) {
    if (out != null) {
      ctx.write(out, ctx.voidPromise());
      out = null;
    }
  }

  private void closeAfterReplies(ChannelHandlerContext ctx) {
    if (out != null) {
      ctx.write(out, ctx.voidPromise());
      out = null;
    }
    ctx.writeAndFlush(Unpooled.EMPTY_BUFFER).addListener(ChannelFutureListener.CLOSE);
  }

  private void updateAutoRead(ChannelHandlerContext ctx) {
    ChannelConfig config = ctx.channel().config();
    boolean want = !closing
        && ctx.channel().isWritable()
        && pending.size() < MAX_PENDING_REQUESTS
        && pendingBytes < MAX_PENDING_BYTES;
    if (config.isAutoRead() != want) {
      config.setAutoRead(want);
    }
  }

  private static long bytesOf(Object msg) {
    if (msg instanceof RespRequest r) {
      long n = 0;
      for (byte[] a : r.args()) {
        n += a.length + 16;
      }
      return n;
    }
    return 0;
  }
}
