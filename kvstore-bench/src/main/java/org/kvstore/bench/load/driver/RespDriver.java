package org.kvstore.bench.load.driver;

import java.util.ArrayList;
import java.util.List;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Pipeline;
import redis.clients.jedis.Response;

/**
 * A server over RESP (kvstore-server or a real Redis server), through Jedis: one connection per
 * session, database 0 (kvstore-server's table {@code default/0}), pipelining by Jedis' pipeline,
 * atomic writes by one {@code MSET}. RESP has no ordered range read, so a workload with scans
 * cannot run here ({@link #scan} fails).
 *
 * <p>Thread safety: thread-safe; each session is confined to one thread.
 */
public final class RespDriver implements Driver {
  private static final int TIMEOUT_MS = 60_000;
  private final String host;
  private final int port;
  private final String label;

  public RespDriver(String host, int port, String label) {
    this.host = host;
    this.port = port;
    this.label = label;
  }

  @Override
  public String name() {
    return label;
  }

  @Override
  public Session openSession() {
    Jedis jedis;
    try {
      jedis = new Jedis(host, port, TIMEOUT_MS);
      jedis.ping();
    } catch (RuntimeException e) {
      throw new DriverException(label + ": cannot connect to " + host + ":" + port, e);
    }
    return new Session() {
      @Override
      public byte[] get(byte[] key) {
        try {
          return jedis.get(key);
        } catch (RuntimeException e) {
          throw new DriverException(label, "GET", key, e);
        }
      }

      @Override
      public void put(byte[] key, byte[] value) {
        try {
          jedis.set(key, value);
        } catch (RuntimeException e) {
          throw new DriverException(label, "SET", key, e);
        }
      }

      @Override
      public int scan(byte[] from, int count) {
        throw new DriverException(label + ": RESP has no ordered range read; run scans embedded, over HTTP or Thrift");
      }

      @Override
      public void writeAtomically(List<byte[]> keys, List<byte[]> values) {
        byte[][] kv = new byte[keys.size() * 2][];
        for (int i = 0; i < keys.size(); i++) {
          kv[2 * i] = keys.get(i);
          kv[2 * i + 1] = values.get(i);
        }
        try {
          jedis.mset(kv);
        } catch (RuntimeException e) {
          throw new DriverException(label, "MSET", keys.get(0), e);
        }
      }

      @Override
      public void pipeline(List<Request> requests, byte[][] results) {
        try {
          Pipeline p = jedis.pipelined();
          List<Response<byte[]>> gets = new ArrayList<>(requests.size());
          for (Request r : requests) {
            if (r.value() == null) {
              gets.add(p.get(r.key()));
            } else {
              p.set(r.key(), r.value());
              gets.add(null);
            }
          }
          p.sync();
          for (int i = 0; i < gets.size(); i++) {
            if (gets.get(i) != null) {
              results[i] = gets.get(i).get();
            }
          }
        } catch (RuntimeException e) {
          throw new DriverException(label, "pipeline", requests.get(0).key(), e);
        }
      }

      @Override
      public void close() {
        jedis.close();
      }
    };
  }

  @Override
  public void close() {
    // sessions own the connections
  }
}
