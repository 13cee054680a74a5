package org.kvstore.spi;

import java.util.List;
import org.kvstore.Entry;
import org.kvstore.InvalidArgumentException;
import org.kvstore.Precondition;
import org.kvstore.PutOptions;
import org.kvstore.WriteResult;

/**
 * The single-key writes of {@link org.kvstore.Table} ({@code put} with options, {@code remove} with
 * a precondition, {@code expireAt}, {@code persist}) as functions of the key's current entry: what
 * each one writes, or {@code null} when it writes nothing (its condition does not hold, the key is
 * absent), and what it reports. Each table implementation reads the entry and applies the result
 * under its own key lock (the store's key stripes, a cluster shard's key latches, held until the
 * write is applied), so the rules themselves are written once.
 *
 * <p>Thread safety: stateless.
 */
public final class SingleKeyWrites {
  private SingleKeyWrites() {}

  /**
   * A put of {@code value} under {@code key} with {@code options}, given the key's {@code current}
   * entry ({@code null}: absent, or not read because {@link PutOptions#readsCurrent()} is false).
   */
  public static List<Mutation> put(byte[] key, byte[] value, PutOptions options, Entry current, long nowMillis) {
    if (!options.precondition().holds(current)) {
      return null;
    }
    return List.of(Mutation.put(key, value, options.resolveExpiry(nowMillis, current)));
  }

  /** A removal of {@code key} if it exists and {@code precondition} holds for it. */
  public static List<Mutation> remove(byte[] key, Precondition precondition, Entry current) {
    return current != null && precondition.holds(current) ? List.of(Mutation.remove(key)) : null;
  }

  /**
   * A new expiry time for an existing {@code key}: a removal when {@code epochMillis} has passed,
   * else the value written again with that expiry.
   */
  public static List<Mutation> expireAt(byte[] key, long epochMillis, Entry current, long nowMillis) {
    if (current == null) {
      return null;
    }
    return epochMillis <= nowMillis
        ? List.of(Mutation.remove(key))
        : List.of(Mutation.put(key, current.value(), epochMillis));
  }

  /** The value of {@code key} written again without its expiry, when it has one. */
  public static List<Mutation> persist(byte[] key, Entry current) {
    return current == null || !current.hasExpiry()
        ? null
        : List.of(Mutation.put(key, current.value(), Entry.NO_EXPIRY));
  }

  /** Refuses an expiry time that is not a positive epoch time. */
  public static void checkExpireAt(long epochMillis) {
    if (epochMillis < 1) {
      throw new InvalidArgumentException(
          "expireAt", "must be a positive time in milliseconds since the epoch, was " + epochMillis);
    }
  }

  /**
   * What a put or remove reports: applied at {@code version} (0: nothing was written), with the
   * entry found before it; a write that was not applied reports the found entry's version.
   * {@code removal}: a removal reports version 0 when applied (no entry is left).
   */
  public static WriteResult result(long version, Entry previous, boolean removal) {
    if (version == 0) {
      return new WriteResult(false, previous == null ? 0 : previous.version(), previous);
    }
    return new WriteResult(true, removal ? 0 : version, previous);
  }
}
