package org.kvstore.cluster.codec;

import java.util.List;

/**
 * The payload of one Raft log entry of a shard group: an idempotent batch of effects on the shard's
 * tables (docs/format/raft-entry.md). Its version is the entry's Raft index, which every replica
 * applies it under; the entry itself carries no index.
 *
 * @param tables the effects, at most one group per table, in the order they are applied
 *
 * <p>Thread safety: immutable by convention.
 */
public record ShardEntry(List<TableEffects> tables) {
  public ShardEntry {
    tables = List.copyOf(tables);
  }

  /** An entry of effects on one table. */
  public static ShardEntry of(String table, List<org.kvstore.spi.Mutation> mutations) {
    return new ShardEntry(List.of(new TableEffects(table, mutations)));
  }
}
