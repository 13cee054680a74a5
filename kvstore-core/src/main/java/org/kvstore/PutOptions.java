package org.kvstore;

import java.time.Duration;

/**
 * How a put treats the key's expiry and what it requires of the current entry. Immutable: each
 * method returns a new instance.
 *
 * <pre>{@code
 * table.put(key, value, PutOptions.defaults().ttl(Duration.ofSeconds(10)));
 * table.put(key, value, PutOptions.defaults().ifAbsent().expireAt(deadlineMillis));
 * table.put(key, value, PutOptions.defaults().ifVersion(etag).keepExpiry());
 * }</pre>
 *
 * <p>Expiry: by default a put removes any expiry the key had (as Redis' {@code SET} does);
 * {@link #ttl} and {@link #expireAt} set one, {@link #keepExpiry} keeps the current one. At most
 * one of the three may be given. A time to live counts from the store's clock when the write is
 * applied; an absolute time not in the future writes an entry that is already expired.
 *
 * <p>Thread safety: immutable.
 */
public final class PutOptions {
  private static final PutOptions DEFAULTS =
      new PutOptions(0, Entry.NO_EXPIRY, false, Precondition.none(), false);

  private final long ttlMillis;
  private final long expireAt;
  private final boolean keepExpiry;
  private final Precondition precondition;
  private final boolean returnPrevious;

  private PutOptions(
      long ttlMillis, long expireAt, boolean keepExpiry, Precondition precondition,
      boolean returnPrevious) {
    this.ttlMillis = ttlMillis;
    this.expireAt = expireAt;
    this.keepExpiry = keepExpiry;
    this.precondition = precondition;
    this.returnPrevious = returnPrevious;
  }

  /** No expiry, no condition: a plain put. */
  public static PutOptions defaults() {
    return DEFAULTS;
  }

  /**
   * Expires the entry {@code ttl} after the write (rounded down to whole milliseconds).
   *
   * @throws InvalidArgumentException if {@code ttl} is under 1 ms, or another expiry was set
   */
  public PutOptions ttl(Duration ttl) {
    if (ttl == null) {
      throw new InvalidArgumentException("ttl", "must not be null");
    }
    return ttlMillis(ttl.toMillis());
  }

  /** {@link #ttl} in milliseconds. */
  public PutOptions ttlMillis(long millis) {
    if (millis < 1) {
      throw new InvalidArgumentException("ttl", "must be at least 1 ms, was " + millis + " ms");
    }
    checkNoExpiryYet();
    return new PutOptions(millis, Entry.NO_EXPIRY, false, precondition, returnPrevious);
  }

  /**
   * Expires the entry at {@code epochMillis} (milliseconds since the epoch).
   *
   * @throws InvalidArgumentException if it is under 1, or another expiry was set
   */
  public PutOptions expireAt(long epochMillis) {
    if (epochMillis < 1) {
      throw new InvalidArgumentException(
          "expireAt", "must be a positive time in milliseconds since the epoch, was " + epochMillis);
    }
    checkNoExpiryYet();
    return new PutOptions(0, epochMillis, false, precondition, returnPrevious);
  }

  /** Keeps the expiry of the current entry (none when absent), as Redis' {@code KEEPTTL}. */
  public PutOptions keepExpiry() {
    checkNoExpiryYet();
    return new PutOptions(0, Entry.NO_EXPIRY, true, precondition, returnPrevious);
  }

  /** Writes only when the key is absent. */
  public PutOptions ifAbsent() {
    return when(Precondition.absent());
  }

  /** Writes only when the key is present. */
  public PutOptions ifPresent() {
    return when(Precondition.present());
  }

  /** Writes only when the key's current version is {@code version}. */
  public PutOptions ifVersion(long version) {
    return when(Precondition.version(version));
  }

  /** Writes only when {@code condition} holds. */
  public PutOptions when(Precondition condition) {
    if (condition == null) {
      throw new InvalidArgumentException("precondition", "must not be null");
    }
    return new PutOptions(ttlMillis, expireAt, keepExpiry, condition, returnPrevious);
  }

  /** Reads the entry the put replaces and returns it in {@link WriteResult#previous()}. */
  public PutOptions returnPrevious() {
    return new PutOptions(ttlMillis, expireAt, keepExpiry, precondition, true);
  }

  public long ttlMillis() {
    return ttlMillis;
  }

  public long expireAt() {
    return expireAt;
  }

  public boolean keepsExpiry() {
    return keepExpiry;
  }

  public Precondition precondition() {
    return precondition;
  }

  public boolean returnsPrevious() {
    return returnPrevious;
  }

  /** Whether the write must read the current entry first (a condition, keep-expiry, previous). */
  public boolean readsCurrent() {
    return keepExpiry || returnPrevious || !precondition.isNone();
  }

  /**
   * The absolute expiry of the written entry, given the store's time and the current entry.
   * {@code current} matters only for {@link #keepExpiry}.
   */
  public long resolveExpiry(long nowMillis, Entry current) {
    if (keepExpiry) {
      return current == null ? Entry.NO_EXPIRY : current.expiresAt();
    }
    if (ttlMillis > 0) {
      return ttlMillis > Long.MAX_VALUE - nowMillis ? Long.MAX_VALUE : nowMillis + ttlMillis;
    }
    return expireAt;
  }

  private void checkNoExpiryYet() {
    if (ttlMillis > 0 || expireAt != Entry.NO_EXPIRY || keepExpiry) {
      throw new InvalidArgumentException(
          "expiry", "at most one of ttl, expireAt and keepExpiry may be given");
    }
  }
}
