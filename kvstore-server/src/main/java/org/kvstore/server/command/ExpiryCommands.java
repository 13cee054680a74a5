package org.kvstore.server.command;

import java.time.Clock;
import java.util.List;
import org.kvstore.Entry;
import org.kvstore.PutOptions;
import org.kvstore.Table;
import org.kvstore.WriteBatch;

/**
 * What the expiry commands do to a table, for every protocol: EXPIRE, PEXPIRE, EXPIREAT and
 * PEXPIREAT (with their NX, XX, GT and LT conditions), TTL, PTTL, EXPIRETIME, PEXPIRETIME, PERSIST
 * and GETEX; and the rules by which SET, SETEX, PSETEX and GETEX turn their time arguments into an
 * absolute expiry ({@link #setExpiryTime}).
 *
 * <p>Time: every computation reads the store's clock ({@link org.kvstore.StoreOptions#clock()}),
 * the same clock the store judges expiry by, so a time to live counts from the store's "now" and
 * tests move time by moving that clock. Expiry times are absolute milliseconds since the epoch, as
 * the store keeps them.
 *
 * <p>Each command that changes a key's expiry reads and writes it in one
 * {@link Table#updateEntries}, so its conditions are checked atomically with the write. A time not
 * after the store's current time deletes the key (as Redis' {@code checkAlreadyExpired}).
 *
 * <p>Errors: {@link CommandException} with Redis' texts, e.g.
 * {@code ERR invalid expire time in 'expire' command}; the store's exceptions pass through.
 *
 * <p>Thread safety: thread-safe.
 */
public final class ExpiryCommands {
  /** The conditions of EXPIRE and its siblings; any combination Redis accepts (XX with GT or LT). */
  public record Condition(boolean nx, boolean xx, boolean gt, boolean lt) {
    public static final Condition ALWAYS = new Condition(false, false, false, false);

    /** Whether a key whose current expiry is {@code current} (-1: none) takes {@code when}. */
    boolean allows(long current, long when) {
      if (nx && current != -1) {
        return false;
      }
      if (xx && current == -1) {
        return false;
      }
      // No expiry counts as an infinite one: GT never beats it, LT always does.
      if (gt && (current == -1 || when <= current)) {
        return false;
      }
      return !(lt && current != -1 && when >= current);
    }
  }

  /** What GETEX does to the key's expiry besides returning its value. */
  public enum GetExpiry {
    /** Nothing (GETEX without options is GET). */
    NONE,
    /** Removes it. */
    PERSIST,
    /** Seconds from now. */
    EX,
    /** Milliseconds from now. */
    PX,
    /** At a Unix time in seconds. */
    EXAT,
    /** At a Unix time in milliseconds. */
    PXAT;

    boolean inSeconds() {
      return this == EX || this == EXAT;
    }

    boolean relative() {
      return this == EX || this == PX;
    }
  }

  /** What TTL and its siblings report. */
  public enum TtlForm {
    /** TTL: seconds left, rounded to the nearest second. */
    SECONDS_LEFT,
    /** PTTL: milliseconds left. */
    MILLIS_LEFT,
    /** EXPIRETIME: the Unix time of the expiry in seconds (rounded to the nearest second). */
    SECONDS_AT,
    /** PEXPIRETIME: the Unix time of the expiry in milliseconds. */
    MILLIS_AT
  }

  private final Clock clock;

  public ExpiryCommands(Clock clock) {
    this.clock = clock;
  }

  /** The store's clock, which every time argument is resolved against. */
  public Clock clock() {
    return clock;
  }

  /**
   * Redis' text for an expiry time out of range in command {@code command} (lower-case name, as in
   * {@code ERR invalid expire time in 'set' command}).
   */
  public static CommandException invalidExpireTime(String command) {
    return new CommandException("ERR invalid expire time in '" + command + "' command");
  }

  /**
   * The absolute expiry (milliseconds since the epoch) of the time argument {@code value} of EXPIRE
   * ({@code seconds}, relative: {@code basetime} is now), PEXPIRE, EXPIREAT or PEXPIREAT ({@code
   * basetime} 0). Negative values are allowed (they delete the key); only a value whose conversion
   * to milliseconds or addition to {@code basetime} overflows is refused, as Redis'
   * {@code expireGenericCommand} does.
   *
   * @throws CommandException {@code ERR invalid expire time in '<command>' command}
   */
  public static long expireTime(long value, boolean seconds, long basetime, String command) {
    long when = value;
    if (seconds) {
      if (when > Long.MAX_VALUE / 1000 || when < Long.MIN_VALUE / 1000) {
        throw invalidExpireTime(command);
      }
      when *= 1000;
    }
    if (when > Long.MAX_VALUE - basetime) {
      throw invalidExpireTime(command);
    }
    return when + basetime;
  }

  /**
   * The absolute expiry of the time argument of SET's {@code EX}/{@code PX}/{@code EXAT}/{@code
   * PXAT}, SETEX, PSETEX and GETEX, as Redis' {@code getExpireMillisecondsOrReply}: the value must be
   * positive, and neither its conversion to milliseconds nor (relative) its addition to
   * {@code nowMillis} may overflow.
   *
   * @throws CommandException {@code ERR value is not an integer or out of range} when
   *     {@code argument} is not an integer; {@code ERR invalid expire time in '<command>' command}
   *     when it is out of range
   */
  public static long setExpiryTime(
      byte[] argument, boolean seconds, boolean relative, long nowMillis, String command) {
    long ms = RedisNumbers.parseLong(argument);
    if (ms <= 0 || (seconds && ms > Long.MAX_VALUE / 1000)) {
      throw invalidExpireTime(command);
    }
    if (seconds) {
      ms *= 1000;
    }
    if (relative) {
      if (ms > Long.MAX_VALUE - nowMillis) {
        throw invalidExpireTime(command);
      }
      ms += nowMillis;
    }
    return ms;
  }

  /**
   * EXPIRE and its siblings: sets the expiry of {@code key} to {@code when} (absolute milliseconds,
   * from {@link #expireTime}) if it exists and {@code condition} allows it; a time not after now
   * deletes the key. Returns whether the key was changed (Redis' reply 1) or not (0).
   */
  public boolean expire(Table t, byte[] key, long when, Condition condition) {
    boolean[] changed = new boolean[1];
    t.updateEntries(List.of(key), cur -> {
      Entry e = cur[0];
      if (e == null || !condition.allows(e.hasExpiry() ? e.expiresAt() : -1, when)) {
        return null;
      }
      changed[0] = true;
      if (when <= clock.millis()) {
        return new WriteBatch().remove(key);
      }
      return new WriteBatch().putOwned(key, e.value(), PutOptions.defaults().expireAt(when));
    });
    return changed[0];
  }

  /**
   * TTL, PTTL, EXPIRETIME, PEXPIRETIME: -2 when {@code key} is absent (or expired), -1 when it has no
   * expiry, else the time left or the time of expiry in the unit of {@code form}.
   */
  public long timeToLive(Table t, byte[] key, TtlForm form) {
    Entry e = t.getEntry(key);
    if (e == null) {
      return -2;
    }
    if (!e.hasExpiry()) {
      return -1;
    }
    return switch (form) {
      case MILLIS_LEFT -> e.remainingMillis(clock.millis());
      case SECONDS_LEFT -> (e.remainingMillis(clock.millis()) + 500) / 1000;
      case MILLIS_AT -> e.expiresAt();
      case SECONDS_AT -> (e.expiresAt() + 500) / 1000;
    };
  }

  /** PERSIST: removes the expiry of {@code key}; returns whether it had one. */
  public boolean persist(Table t, byte[] key) {
    return t.persist(key);
  }

  /**
   * GETEX: the value of {@code key} (null when absent), and with {@code expiry} other than
   * {@link GetExpiry#NONE} its expiry changed as a SET with that option would set it ({@code time}
   * is the raw time argument), or removed ({@link GetExpiry#PERSIST}). As in Redis, an absent key
   * answers null before its time argument is checked, and an absolute time not after now deletes the
   * key (its value is still returned).
   *
   * @throws CommandException as {@link #setExpiryTime} for a bad time argument of an existing key
   */
  public byte[] getAndExpire(Table t, byte[] key, GetExpiry expiry, byte[] time) {
    if (expiry == GetExpiry.NONE) {
      return t.get(key);
    }
    byte[][] value = new byte[1][];
    t.updateEntries(List.of(key), cur -> {
      Entry e = cur[0];
      if (e == null) {
        return null;
      }
      long now = clock.millis();
      value[0] = e.value();
      if (expiry == GetExpiry.PERSIST) {
        return e.hasExpiry() ? new WriteBatch().put(key, e.value()) : null;
      }
      long when = setExpiryTime(time, expiry.inSeconds(), expiry.relative(), now, "getex");
      if (when <= now) {
        return new WriteBatch().remove(key);
      }
      return new WriteBatch().put(key, e.value(), PutOptions.defaults().expireAt(when));
    });
    return value[0];
  }
}
