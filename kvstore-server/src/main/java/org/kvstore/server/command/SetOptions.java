package org.kvstore.server.command;

import org.kvstore.Entry;
import org.kvstore.PutOptions;

/**
 * The conditions and expiry of a SET ({@link StringCommands#set}): when it writes, whether it
 * returns the value it replaces, and what becomes of the key's expiry.
 *
 * @param condition when the value is written
 * @param returnOld whether the result carries the value before (Redis {@code SET ... GET})
 * @param expireAt the absolute expiry of the written key in milliseconds since the epoch
 *     ({@code EX}, {@code PX}, {@code EXAT}, {@code PXAT} resolved against the store's clock), or
 *     {@link Entry#NO_EXPIRY}: the written key has no expiry, unless {@code keepTtl}
 * @param keepTtl whether the key keeps the expiry it had (Redis {@code KEEPTTL})
 *
 * <p>Thread safety: immutable.
 */
public record SetOptions(Condition condition, boolean returnOld, long expireAt, boolean keepTtl) {
  /** Writes unconditionally, without expiry, and returns nothing: the plain {@code SET key value}. */
  public static final SetOptions PLAIN = new SetOptions(Condition.ALWAYS, false);

  private static final PutOptions KEEP_EXPIRY = PutOptions.defaults().keepExpiry();

  /** When a SET writes. */
  public enum Condition {
    ALWAYS,
    /** Only when the key is absent (Redis {@code NX}). */
    IF_ABSENT,
    /** Only when the key exists (Redis {@code XX}). */
    IF_PRESENT
  }

  public SetOptions {
    if (condition == null) {
      throw new IllegalArgumentException("condition must not be null");
    }
    if (expireAt < 0 || (keepTtl && expireAt != Entry.NO_EXPIRY)) {
      throw new IllegalArgumentException(
          "expireAt must be positive and not combined with keepTtl, was " + expireAt);
    }
  }

  /** A SET without expiry. */
  public SetOptions(Condition condition, boolean returnOld) {
    this(condition, returnOld, Entry.NO_EXPIRY, false);
  }

  /** The unconditional SET that expires the key at {@code expireAt} (SETEX, PSETEX, SET EX). */
  public static SetOptions expiringAt(long expireAt) {
    return new SetOptions(Condition.ALWAYS, false, expireAt, false);
  }

  /**
   * Whether this SET writes without reading the key (unconditional, no GET, no KEEPTTL), so it goes
   * through the {@link PutWriter} like the plain SET, with or without an expiry.
   */
  public boolean isPlain() {
    return condition == Condition.ALWAYS && !returnOld && !keepTtl;
  }

  /** The store's options for the put: the expiry to set, to keep, or none. */
  public PutOptions putOptions() {
    if (keepTtl) {
      return KEEP_EXPIRY;
    }
    return expireAt == Entry.NO_EXPIRY ? PutOptions.defaults() : PutOptions.defaults().expireAt(expireAt);
  }
}
