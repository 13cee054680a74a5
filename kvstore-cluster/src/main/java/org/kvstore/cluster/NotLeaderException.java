package org.kvstore.cluster;

/**
 * A write was sent to a node that does not lead the shard; nothing was proposed. Send it to
 * {@link #leaderId()} (null when no leader is known, during an election).
 */
public final class NotLeaderException extends ClusterException {
  private static final long serialVersionUID = 1L;
  private final String leaderId;

  public NotLeaderException(String shard, String nodeId, String leaderId) {
    super("node " + nodeId + " does not lead shard " + shard
        + (leaderId == null ? " (no leader known)" : "; the leader is " + leaderId));
    this.leaderId = leaderId;
  }

  /** The leader's node id, or {@code null}. */
  public String leaderId() {
    return leaderId;
  }
}
