package org.kvstore.lsm;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A clock tests move by hand, so that entries expire without sleeping.
 *
 * <p>Thread safety: thread-safe.
 */
final class FakeClock extends Clock {
  private final AtomicLong millis;

  FakeClock(long startMillis) {
    this.millis = new AtomicLong(startMillis);
  }

  void advance(long byMillis) {
    millis.addAndGet(byMillis);
  }

  @Override
  public long millis() {
    return millis.get();
  }

  @Override
  public Instant instant() {
    return Instant.ofEpochMilli(millis.get());
  }

  @Override
  public ZoneId getZone() {
    return ZoneOffset.UTC;
  }

  @Override
  public Clock withZone(ZoneId zone) {
    throw new UnsupportedOperationException("a fake clock has one zone");
  }
}
