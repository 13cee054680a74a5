package org.kvstore.server.thrift;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import java.util.ArrayDeque;
import java.util.concurrent.Executor;
import org.apache.thrift.TConfiguration;
import org.apache.thrift.protocol.TField;
import org.apache.thrift.protocol.TProtocol;
import org.apache.thrift.protocol.TType;
import org.apache.thrift.transport.TMemoryInputTransport;
import org.apache.thrift.transport.TTransportException;
import org.kvstore.thrift.KvService;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs a connection's calls in order, one at a time, through the generated processor:
 *
 * <pre>
 *   ThriftRequest ──▶ pending ──▶ quick call: on the event loop ──────────────┐
 *                            └──▶ may block: on a worker (reads paused) ──────┴──▶ reply (framed if the request was)
 * </pre>
 *
 * A call that may block ({@link ThriftKvService#mayBlock}: a write that waits for an fsync, a scan,
 * a batch, a catalog change) runs on a worker while the connection reads nothing more; the others
 * run on the event loop. While the channel is not writable (a client that stops reading), calls
 * wait and reading stops, so its replies queue at most up to the channel's high water mark.
 *
 * <p>Thread safety: confined to the channel's event loop (a worker only runs the processor and
 * hands the reply back to the loop).
 */
public final class ThriftConnectionHandler extends ChannelInboundHandlerAdapter {
  private static final Logger LOG = LoggerFactory.getLogger(ThriftConnectionHandler.class);

  private final ThriftKvService service;
  private final KvService.Processor<ThriftKvService> processor;
  private final Executor workers;
  private final ThriftRequestObserver observer;
  private final TConfiguration config;
  private final ArrayDeque<ThriftRequest> pending = new ArrayDeque<>();
  /** A call runs on a worker. */
  private boolean busy;
  /**
   * The connection's protocols, made at its first call (its format is fixed by then) and reused for
   * every call: the worker uses them only while {@link #busy}, when the loop does not.
   */
  private Protocols protocols;

  public ThriftConnectionHandler(ThriftKvService service, Executor workers, ThriftRequestObserver observer,
      int maxMessageBytes) {
    this.service = service;
    this.processor = new KvService.Processor<>(service);
    this.workers = workers;
    this.observer = observer;
    this.config = new TConfiguration(maxMessageBytes, maxMessageBytes, ThriftMessageDecoder.MAX_DEPTH);
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    pending.add((ThriftRequest) msg);
    drain(ctx);
  }

  @Override
  public void channelReadComplete(ChannelHandlerContext ctx) {
    ctx.flush();
  }

  @Override
  public void channelWritabilityChanged(ChannelHandlerContext ctx) {
    if (ctx.channel().isWritable()) {
      drain(ctx);
    }
    ctx.fireChannelWritabilityChanged();
  }

  private void drain(ChannelHandlerContext ctx) {
    boolean wrote = false;
    while (!busy && !pending.isEmpty() && ctx.channel().isActive()) {
      if (!ctx.channel().isWritable()) {
        ctx.channel().config().setAutoRead(false);
        break;
      }
      ThriftRequest r = pending.poll();
      if (service.mayBlock(r.method(), () -> peekDbAndTable(r))) {
        busy = true;
        ctx.channel().config().setAutoRead(false);
        workers.execute(() -> {
          ByteBuf reply = process(ctx, r);
          ctx.executor().execute(() -> {
            busy = false;
            if (reply != null) {
              ctx.writeAndFlush(reply);
            }
            drain(ctx);
          });
        });
        return;
      }
      ByteBuf reply = process(ctx, r);
      if (reply != null) {
        ctx.write(reply);
        wrote = true;
      }
    }
    if (wrote) {
      ctx.flush();
    }
    if (!busy && pending.isEmpty() && ctx.channel().isWritable()) {
      ctx.channel().config().setAutoRead(true);
    }
  }

  /** The reply to {@code r}, or null when the connection was closed because the call could not be answered. */
  private ByteBuf process(ChannelHandlerContext ctx, ThriftRequest r) {
    ByteBuf out = ctx.alloc().buffer(256);
    try {
      if (r.format().framed()) {
        out.writeInt(0);
      }
      Protocols p = protocols(r);
      p.input.reset(r.message());
      p.output.target(out);
      p.in.reset();
      p.out.reset();
      processor.process(p.in, p.out);
      p.output.target(null);
      if (r.format().framed()) {
        out.setInt(0, out.readableBytes() - 4);
      }
      observer.served(r.method());
      return out;
    } catch (Exception | StackOverflowError e) {
      out.release();
      LOG.warn("closing Thrift connection {}: call '{}' could not be answered: {}",
          ctx.channel().remoteAddress(), r.method(), e.toString());
      ctx.close();
      return null;
    }
  }

  /**
   * The first two arguments of a call when they are strings (db and table in every data method),
   * else null. Used only to choose the thread.
   */
  private String[] peekDbAndTable(ThriftRequest r) {
    try {
      Protocols protocols = protocols(r);
      protocols.input.reset(r.message());
      TProtocol p = protocols.in;
      p.reset();
      p.readMessageBegin();
      p.readStructBegin();
      String[] out = new String[2];
      for (int i = 0; i < 2; i++) {
        TField f = p.readFieldBegin();
        if (f.type != TType.STRING || f.id < 1 || f.id > 2) {
          return null;
        }
        out[f.id - 1] = p.readString();
      }
      return out;
    } catch (Exception e) {
      return null;
    }
  }

  private Protocols protocols(ThriftRequest r) throws TTransportException {
    if (protocols == null) {
      TMemoryInputTransport input = new TMemoryInputTransport(config, new byte[0]);
      ByteBufOutputTransport output = new ByteBufOutputTransport(null);
      protocols = new Protocols(input, r.format().protocol(input), output, r.format().protocol(output));
    }
    return protocols;
  }

  /** A connection's request transport and protocol and its reply transport and protocol. */
  private record Protocols(TMemoryInputTransport input, TProtocol in, ByteBufOutputTransport output, TProtocol out) {}

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    if (cause instanceof io.netty.handler.codec.DecoderException && cause.getCause() instanceof ThriftWireException) {
      LOG.warn("closing Thrift connection {}: {}", ctx.channel().remoteAddress(), cause.getCause().getMessage());
    } else if (cause instanceof java.io.IOException) {
      LOG.debug("Thrift connection {}: {}", ctx.channel().remoteAddress(), cause.toString());
    } else {
      LOG.warn("closing Thrift connection {}", ctx.channel().remoteAddress(), cause);
    }
    ctx.close();
  }
}
