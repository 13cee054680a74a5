package org.kvstore.cluster;

import java.util.Map;

/**
 * One replica's view of its shard's Raft group, for metrics and {@code INFO}.
 *
 * @param shard the shard's name
 * @param role {@code leader}, {@code follower}, {@code candidate} or {@code listener}
 * @param term the replica's current Raft term
 * @param leaderId the leader's node id as the replica knows it, or {@code null}
 * @param commitIndex the highest log index the replica knows to be committed
 * @param appliedIndex the highest log index the replica has applied to its tables
 * @param followerLag on the leader: for each other replica, how many entries its commit index
 *     trails the leader's, as the leader last heard (0 when caught up); empty on the others
 * @param readBarriers linearizable reads this replica has sent through Raft since start: each a read
 *     index round (or a lease check) for one GET or for a run of reads
 *
 * <p>Thread safety: immutable.
 */
public record ShardStatus(String shard, String role, long term, String leaderId, long commitIndex,
    long appliedIndex, Map<String, Long> followerLag, long readBarriers) {
  public ShardStatus {
    followerLag = Map.copyOf(followerLag);
  }
}
