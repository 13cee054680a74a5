package org.kvstore.bench;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.List;
import org.apache.thrift.TConfiguration;
import org.apache.thrift.TException;
import org.apache.thrift.protocol.TBinaryProtocol;
import org.apache.thrift.transport.TTransport;
import org.apache.thrift.transport.TTransportException;
import org.apache.thrift.transport.layered.TFramedTransport;
import org.kvstore.thrift.KvService;

/**
 * Many generated {@code KvService.Client}s (framed binary), each on its own connection, driven by
 * the calling thread through one {@link Selector}: a call is the client's {@code send_<method>}
 * (the generated code writes the framed request, which goes to the socket at once) and, when the
 * whole reply frame has arrived, its {@code recv_<method>}. This is how redis-benchmark drives its
 * clients from one event loop: a call costs the load generator a write, a read and a share of one
 * {@code epoll_wait}, where libthrift's {@code TAsyncClientManager} also re-registers the socket
 * with its selector and wakes the selector up for every call.
 *
 * <p>Thread safety: confined to the thread that calls {@link #runUntil}.
 */
final class ThriftSelectorClients implements AutoCloseable {

  /** What the driver does with one connection: start its next call, and finish one when its reply is in. */
  interface Calls {
    /** Sends {@code c}'s next call ({@code c.client().send_...}); returns false when {@code c} is done. */
    boolean send(Connection c) throws TException;

    /** Reads {@code c}'s reply ({@code c.client().recv_...}), its whole frame being buffered. */
    void receive(Connection c) throws TException;
  }

  /** One client and its connection. */
  static final class Connection {
    private final SocketChannel channel;
    private final ChannelTransport transport;
    private final KvService.Client client;
    private boolean done;
    /** The caller's record of the call in flight: when it was sent, and its key. */
    long sentNanos;
    ByteBuffer key;

    private Connection(SocketChannel channel, TConfiguration config) throws TTransportException {
      this.channel = channel;
      this.transport = new ChannelTransport(channel, config);
      this.client = new KvService.Client(new TBinaryProtocol(new TFramedTransport(transport)));
    }

    KvService.Client client() {
      return client;
    }
  }

  private final Selector selector;
  private final List<Connection> connections = new ArrayList<>();

  ThriftSelectorClients(String host, int port, int clients) throws IOException, TTransportException {
    selector = Selector.open();
    TConfiguration config = new TConfiguration();
    try {
      for (int i = 0; i < clients; i++) {
        SocketChannel ch = SocketChannel.open(new InetSocketAddress(host, port));
        ch.setOption(StandardSocketOptions.TCP_NODELAY, true);
        ch.configureBlocking(false);
        Connection c = new Connection(ch, config);
        c.transport.key = ch.register(selector, SelectionKey.OP_READ, c);
        connections.add(c);
      }
    } catch (IOException | TTransportException | RuntimeException e) {
      close();
      throw e;
    }
  }

  /**
   * Starts a call on every connection and goes on until each one's {@link Calls#send} returned
   * false and its last reply is in, or until {@code timeoutMillis} pass without any reply.
   */
  void runUntil(Calls calls, long timeoutMillis) throws IOException, TException {
    int active = 0;
    for (Connection c : connections) {
      c.done = false;
      if (calls.send(c)) {
        active++;
      } else {
        c.done = true;
      }
    }
    while (active > 0) {
      if (selector.select(timeoutMillis) == 0) {
        throw new TTransportException(TTransportException.TIMED_OUT,
            "no Thrift reply within " + timeoutMillis + " ms (" + active + " calls outstanding)");
      }
      var keys = selector.selectedKeys();
      for (SelectionKey key : keys) {
        Connection c = (Connection) key.attachment();
        if (key.isWritable()) {
          c.transport.writePending();
        }
        if (key.isReadable()) {
          c.transport.fill();
          while (!c.done && c.transport.hasFrame()) {
            calls.receive(c);
            if (!calls.send(c)) {
              c.done = true;
              active--;
            }
          }
        }
      }
      keys.clear();
    }
  }

  @Override
  public void close() throws IOException {
    for (Connection c : connections) {
      c.channel.close();
    }
    selector.close();
  }

  /**
   * The bytes under a generated client's {@code TFramedTransport}: writes collect in a buffer that
   * {@link #flush} hands to the non-blocking socket (what it cannot take waits for OP_WRITE); reads
   * come from what {@link #fill} read, and are asked for only once a whole frame is there.
   */
  private static final class ChannelTransport extends TTransport {
    private final SocketChannel channel;
    private final TConfiguration config;
    /** The channel's registration with the driver's selector. */
    private SelectionKey key;
    private ByteBuffer out = ByteBuffer.allocate(4096);
    /** Read mode between fills. */
    private ByteBuffer in = ByteBuffer.allocate(64 * 1024).flip();

    ChannelTransport(SocketChannel channel, TConfiguration config) {
      this.channel = channel;
      this.config = config;
    }

    /** Reads what the socket has. */
    void fill() throws IOException {
      in.compact();
      try {
        if (channel.read(in) < 0) {
          throw new IOException("the server closed the connection");
        }
      } finally {
        in.flip();
      }
    }

    /** Whether a whole reply frame (length prefix and body) is buffered; grows the buffer for a larger one. */
    boolean hasFrame() {
      if (in.remaining() < 4) {
        return false;
      }
      int length = in.getInt(in.position());
      if (length + 4 > in.capacity()) {
        in = ByteBuffer.allocate(length + 4).put(in).flip();
      }
      return in.remaining() >= length + 4;
    }

    @Override
    public int read(byte[] buf, int off, int len) throws TTransportException {
      int n = Math.min(len, in.remaining());
      if (n == 0) {
        throw new TTransportException(TTransportException.END_OF_FILE, "read past the buffered reply frame");
      }
      in.get(buf, off, n);
      return n;
    }

    @Override
    public void write(byte[] buf, int off, int len) {
      if (out.remaining() < len) {
        out = ByteBuffer.allocate(Math.max(out.capacity() * 2, out.position() + len)).put(out.flip());
      }
      out.put(buf, off, len);
    }

    @Override
    public void flush() throws TTransportException {
      out.flip();
      try {
        channel.write(out);
        if (out.hasRemaining()) {
          key.interestOps(SelectionKey.OP_READ | SelectionKey.OP_WRITE);
        }
      } catch (IOException e) {
        throw new TTransportException(TTransportException.UNKNOWN, e);
      } finally {
        out.compact();
      }
    }

    /** Writes what {@link #flush} left when the socket is writable again. */
    void writePending() throws IOException {
      out.flip();
      try {
        channel.write(out);
        if (!out.hasRemaining()) {
          key.interestOps(SelectionKey.OP_READ);
        }
      } finally {
        out.compact();
      }
    }

    @Override
    public boolean isOpen() {
      return channel.isOpen();
    }

    @Override
    public void open() {
      // connected when made
    }

    @Override
    public void close() {
      try {
        channel.close();
      } catch (IOException e) {
        throw new java.io.UncheckedIOException(e);
      }
    }

    @Override
    public TConfiguration getConfiguration() {
      return config;
    }

    @Override
    public void updateKnownMessageSize(long size) {
      // the frame was checked whole before any read
    }

    @Override
    public void checkReadBytesAvailable(long numBytes) {
      // as above
    }
  }
}
