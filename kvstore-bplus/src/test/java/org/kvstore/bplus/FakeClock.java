package org.kvstore.bplus;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.concurrent.atomic.AtomicLong;

/** A clock the test moves by hand (expiry tests never sleep). Thread safety: thread-safe. */
final class FakeClock extends Clock {
  private final AtomicLong millis;

  FakeClock(long startMillis) {
    this.millis = new AtomicLong(startMillis);
  }

  void set(long nowMillis) {
    millis.set(nowMillis);
  }

  void advance(long deltaMillis) {
    millis.addAndGet(deltaMillis);
  }

  @Override
  public long millis() {
    return millis.get();
  }

  @Override
  public Instant instant() {
    return Instant.ofEpochMilli(millis());
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
