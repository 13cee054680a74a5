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
  private final String endpoint;

  /**
   * @param endpoint the serving node's client address {@code host:port} (its Redis protocol), or
   *     null when the caller has no client addresses
   */
  public SlotMovedException(int slot, String shard, String nodeId, String endpoint) {
    super("hash slot " + slot + " (shard " + shard + ") is served by node " + nodeId
        + (endpoint == null ? "" : " at " + endpoint));
    this.slot = slot;
    this.nodeId = nodeId;
    this.endpoint = endpoint;
  }

  /** The serving node's client address {@code host:port}, or null when unknown. */
  public String endpoint() {
    return endpoint;
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
