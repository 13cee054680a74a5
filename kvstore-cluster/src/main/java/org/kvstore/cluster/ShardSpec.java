package org.kvstore.cluster;

import java.util.List;
import java.util.regex.Pattern;

/**
 * One shard: a Raft group whose state is a set of replicated tables, held in each replica's KVStore
 * as the tables of the database named like the shard.
 *
 * @param name the shard's name (its database name in each node's store, and the seed of its Raft
 *     group id): letters, digits, {@code _} and {@code -}
 * @param tables the shard's table names, fixed at creation
 * @param engine the durable engine of the tables ({@code lsm} or {@code bplus})
 *
 * <p>Thread safety: immutable.
 */
public record ShardSpec(String name, List<String> tables, String engine) {
  private static final Pattern NAME = Pattern.compile("[A-Za-z0-9_-]{1,64}");

  public ShardSpec {
    if (name == null || !NAME.matcher(name).matches()) {
      throw new IllegalArgumentException("shard name must be 1 to 64 letters, digits, _ or -, was " + name);
    }
    if (tables == null || tables.isEmpty()) {
      throw new IllegalArgumentException("shard " + name + " needs at least one table");
    }
    tables = List.copyOf(tables);
    if (engine == null || engine.isBlank()) {
      throw new IllegalArgumentException("shard " + name + ": engine must be named");
    }
  }
}
