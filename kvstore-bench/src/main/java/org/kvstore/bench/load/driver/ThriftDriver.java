package org.kvstore.bench.load.driver;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.thrift.TConfiguration;
import org.apache.thrift.TException;
import org.apache.thrift.protocol.TBinaryProtocol;
import org.apache.thrift.transport.TSocket;
import org.apache.thrift.transport.TTransport;
import org.apache.thrift.transport.layered.TFramedTransport;
import org.kvstore.thrift.AlreadyExists;
import org.kvstore.thrift.KvService;
import org.kvstore.thrift.Mutation;
import org.kvstore.thrift.MutationType;
import org.kvstore.thrift.NotFound;
import org.kvstore.thrift.PutOptions;
import org.kvstore.thrift.ScanPage;
import org.kvstore.thrift.ScanRequest;
import org.kvstore.thrift.TableSpec;

/**
 * kvstore-server's Thrift service through the generated client, connected as
 * {@code org.kvstore.bench.ThriftLoad} connects (framed transport, binary protocol), one connection
 * per session, on table {@code default/0} (RESP's database 0), which the first session creates when
 * missing. Frames are sized for values of several MiB.
 *
 * <p>Thread safety: thread-safe; each session is confined to one thread.
 */
public final class ThriftDriver implements Driver {
  private static final String DB = "default";
  private static final String TABLE = "0";
  private static final int TIMEOUT_MS = 60_000;
  private static final int MAX_FRAME_BYTES = 64 << 20;

  private final String host;
  private final int port;
  private volatile boolean tableReady;

  public ThriftDriver(String host, int port) {
    this.host = host;
    this.port = port;
  }

  @Override
  public String name() {
    return "thrift";
  }

  @Override
  public Session openSession() {
    TTransport transport;
    KvService.Client client;
    try {
      TConfiguration conf = TConfiguration.custom().setMaxFrameSize(MAX_FRAME_BYTES)
          .setMaxMessageSize(MAX_FRAME_BYTES).build();
      transport = new TFramedTransport(new TSocket(conf, host, port, TIMEOUT_MS), MAX_FRAME_BYTES);
      transport.open();
      client = new KvService.Client(new TBinaryProtocol(transport));
      if (!tableReady) {
        ensureTable(client);
        tableReady = true;
      }
    } catch (TException e) {
      throw new DriverException("thrift: cannot connect to " + host + ":" + port, e);
    }
    return new Session() {
      @Override
      public byte[] get(byte[] key) {
        try {
          ByteBuffer v = client.get(DB, TABLE, ByteBuffer.wrap(key));
          byte[] out = new byte[v.remaining()];
          v.get(out);
          return out;
        } catch (NotFound e) {
          return null;
        } catch (TException e) {
          throw new DriverException("thrift", "get", key, e);
        }
      }

      @Override
      public void put(byte[] key, byte[] value) {
        try {
          client.put(DB, TABLE, ByteBuffer.wrap(key), ByteBuffer.wrap(value), new PutOptions());
        } catch (TException e) {
          throw new DriverException("thrift", "put", key, e);
        }
      }

      @Override
      public int scan(byte[] from, int count) {
        try {
          ScanPage page = client.scan(DB, TABLE, new ScanRequest().setStartKey(from).setLimit(Math.min(count, 1000)));
          return page.getEntriesSize();
        } catch (TException e) {
          throw new DriverException("thrift", "scan", from, e);
        }
      }

      @Override
      public void writeAtomically(List<byte[]> keys, List<byte[]> values) {
        List<Mutation> ops = new ArrayList<>(keys.size());
        for (int i = 0; i < keys.size(); i++) {
          ops.add(new Mutation(MutationType.PUT, ByteBuffer.wrap(keys.get(i))).setValue(values.get(i)));
        }
        try {
          client.batch(DB, TABLE, ops, true);
        } catch (TException e) {
          throw new DriverException("thrift", "batch", keys.get(0), e);
        }
      }

      @Override
      public void close() {
        transport.close();
      }
    };
  }

  private static void ensureTable(KvService.Client client) throws TException {
    try {
      client.describeTable(DB, TABLE);
      return;
    } catch (NotFound e) {
      // created below
    }
    try {
      client.createDb(DB, Map.of());
    } catch (AlreadyExists e) {
      // another client created it meanwhile
    }
    try {
      client.createTable(new TableSpec(DB, TABLE));
    } catch (AlreadyExists e) {
      // another client created it meanwhile
    }
  }

  @Override
  public void close() {
    // sessions own the connections
  }
}
