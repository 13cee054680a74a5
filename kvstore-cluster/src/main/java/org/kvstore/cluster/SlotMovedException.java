package org.kvstore.cluster;

/**
 * A request for a key was sent to a node that does not serve the key's hash slot for it: another
 * node leads the slot's shard. Nothing was done. Redis Cluster clients are answered
 * {@code -MOVED <slot> <host>:<port>} with the leader's client address.
 *
 * <p>Thread safety: immutable.
 */
public final class SlotMovedException extends ClusterException {
  private static final long serialVersionUID = 1L;
  private final int slot;
  private final String nodeId;

  public SlotMovedException(int slot, String shard, String nodeId) {
    super("hash slot " + slot + " (shard " + shard + ") is served by node " + nodeId);
    this.slot = slot;
    this.nodeId = nodeId;
  }

  /** The hash slot of the request's keys. */
  public int slot() {
    return slot;
  }

  /** The id of the node that serves the slot: the shard's leader as this node knows it. */
  public String nodeId() {
    return nodeId;
  }
}
