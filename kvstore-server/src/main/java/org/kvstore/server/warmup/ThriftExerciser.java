package org.kvstore.server.warmup;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import org.apache.thrift.TException;
import org.apache.thrift.protocol.TBinaryProtocol;
import org.apache.thrift.transport.TSocket;
import org.apache.thrift.transport.layered.TFramedTransport;
import org.kvstore.server.command.Keyspace;
import org.kvstore.thrift.GetResult;
import org.kvstore.thrift.KvService;
import org.kvstore.thrift.PutOptions;

/**
 * A Thrift client (framed, binary: libthrift's usual pairing) of table {@code default/0}: per round
 * a put of a 3- or 500-byte value, a get of it and a multiGet of four keys.
 *
 * <p>Thread safety: confined.
 */
final class ThriftExerciser implements Exerciser {
  private static final String TABLE = "0";
  private static final byte[] SMALL = {'x', 'x', 'x'};
  private static final byte[] LARGE = filled(500);

  private final TSocket socket;
  private final KvService.Client client;
  private final SplittableRandom random;
  private long rounds;

  ThriftExerciser(InetSocketAddress server, long seed) throws IOException {
    try {
      socket = new TSocket("127.0.0.1", server.getPort(), 30_000);
      TFramedTransport framed = new TFramedTransport(socket);
      framed.open();
      client = new KvService.Client(new TBinaryProtocol(framed));
    } catch (TException e) {
      throw new IOException("cannot connect to the scratch server's Thrift port: " + e.getMessage(), e);
    }
    random = new SplittableRandom(seed);
  }

  @Override
  public String protocol() {
    return "Thrift";
  }

  @Override
  public int round() throws IOException {
    ByteBuffer key = key();
    byte[] value = rounds++ % 2 == 0 ? SMALL : LARGE;
    try {
      client.put(Keyspace.DEFAULT_DB, TABLE, key.duplicate(), ByteBuffer.wrap(value), new PutOptions());
      ByteBuffer got = client.get(Keyspace.DEFAULT_DB, TABLE, key.duplicate());
      if (got.remaining() != value.length) {
        throw new WarmupException("Thrift get on the scratch server returned " + got.remaining() + " bytes, not "
            + value.length);
      }
      List<GetResult> many = client.multiGet(Keyspace.DEFAULT_DB, TABLE, List.of(key(), key(), key(), key()));
      if (many.size() != 4) {
        throw new WarmupException("Thrift multiGet of 4 keys on the scratch server returned " + many.size());
      }
    } catch (TException e) {
      throw new IOException("Thrift request to the scratch server failed: " + e, e);
    }
    return 3;
  }

  private ByteBuffer key() {
    return ByteBuffer.wrap(("thrift:" + random.nextInt(10_000)).getBytes(java.nio.charset.StandardCharsets.US_ASCII));
  }

  private static byte[] filled(int n) {
    byte[] b = new byte[n];
    Arrays.fill(b, (byte) 'x');
    return b;
  }

  @Override
  public void close() {
    socket.close();
  }
}
