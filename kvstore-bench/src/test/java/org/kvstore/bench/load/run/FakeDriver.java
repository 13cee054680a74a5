package org.kvstore.bench.load.run;

import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.atomic.AtomicLong;
import org.kvstore.bench.load.driver.Driver;
import org.kvstore.bench.load.driver.Session;

/** A map in memory that can stall one chosen request, for tests of the run loop. */
class FakeDriver implements Driver {
  final ConcurrentSkipListMap<String, byte[]> map = new ConcurrentSkipListMap<>();
  final AtomicLong requests = new AtomicLong();
  private final long stallAtRequest;
  private final long stallNanos;
  final ConcurrentHashMap<Thread, Boolean> sessions = new ConcurrentHashMap<>();

  FakeDriver(long stallAtRequest, long stallNanos) {
    this.stallAtRequest = stallAtRequest;
    this.stallNanos = stallNanos;
  }

  FakeDriver() {
    this(-1, 0);
  }

  private void maybeStall() {
    if (requests.incrementAndGet() == stallAtRequest) {
      long end = System.nanoTime() + stallNanos;
      while (System.nanoTime() < end) {
        java.util.concurrent.locks.LockSupport.parkNanos(end - System.nanoTime());
      }
    }
  }

  @Override
  public String name() {
    return "fake";
  }

  @Override
  public Session openSession() {
    sessions.put(Thread.currentThread(), true);
    return new Session() {
      @Override
      public byte[] get(byte[] key) {
        maybeStall();
        return map.get(new String(key));
      }

      @Override
      public void put(byte[] key, byte[] value) {
        maybeStall();
        map.put(new String(key), value.clone());
      }

      @Override
      public int scan(byte[] from, int count) {
        maybeStall();
        return Math.min(count, map.tailMap(new String(from)).size());
      }

      @Override
      public void writeAtomically(List<byte[]> keys, List<byte[]> values) {
        maybeStall();
        for (int i = 0; i < keys.size(); i++) {
          map.put(new String(keys.get(i)), values.get(i).clone());
        }
      }

      @Override
      public void close() {}
    };
  }

  @Override
  public void close() {}
}
