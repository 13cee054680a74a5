package org.kvstore.cluster;

/**
 * The shard that owns a request's hash slot has no leader that this node knows of, and none was
 * elected within the wait (no quorum): nothing was done. Redis clients are answered
 * {@code -CLUSTERDOWN The cluster is down}; the request may be retried.
 *
 * <p>Thread safety: immutable.
 */
public final class ClusterDownException extends ClusterException {
  private static final long serialVersionUID = 1L;
  private final int slot;

  public ClusterDownException(int slot, String shard, String detail) {
    super("hash slot " + slot + " (shard " + shard + ") has no leader: " + detail);
    this.slot = slot;
  }

  public int slot() {
    return slot;
  }
}
