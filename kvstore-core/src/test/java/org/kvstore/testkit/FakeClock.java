package org.kvstore.testkit;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A clock tests move by hand: expiry tests advance it instead of sleeping.
 *
 * <p>Thread safety: thread-safe (an atomic millisecond counter).
 */
public final class FakeClock extends Clock {
  private final AtomicLong millis;

  public FakeClock(long startMillis) {
    this.millis = new AtomicLong(startMillis);
  }

  /** A clock at a fixed, realistic time (2026-01-01T00:00:00Z). */
  public static FakeClock atDefaultStart() {
    return new FakeClock(1_767_225_600_000L);
  }

  public void set(long nowMillis) {
    millis.set(nowMillis);
  }

  public void advance(Duration d) {
    millis.addAndGet(d.toMillis());
  }

  public void advanceMillis(long ms) {
    millis.addAndGet(ms);
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
    return this;
  }
}
