package org.kvstore.cluster;

/**
 * One request named keys of different hash slots (or, for a batch through {@link
 * ShardedTable}, of different shards): nothing was done, since only the
 * keys of one shard can be written atomically. Redis clients are answered {@code -CROSSSLOT Keys in
 * request don't hash to the same slot}; a hash tag ({@code {user1}.name}, {@code {user1}.mail})
 * puts keys into one slot.
 *
 * <p>Thread safety: immutable.
 */
public final class CrossSlotException extends ClusterException {
  private static final long serialVersionUID = 1L;

  public CrossSlotException(String message) {
    super(message);
  }
}
