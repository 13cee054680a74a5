package org.kvstore.cluster.codec;

import java.util.List;
import org.kvstore.spi.Mutation;

/**
 * The effects of one Raft entry on one table of a shard: puts (with their expiry) and removes, in
 * order, each idempotent, so that applying them again to a state that already has them changes
 * nothing.
 *
 * @param table the table's name within the shard's database
 * @param mutations the effects, in the order they are applied; possibly empty
 *
 * <p>Thread safety: immutable by convention (the arrays are never modified).
 */
public record TableEffects(String table, List<Mutation> mutations) {
  public TableEffects {
    if (table == null || table.isEmpty()) {
      throw new IllegalArgumentException("table must be a non-empty name");
    }
    mutations = List.copyOf(mutations);
  }
}
