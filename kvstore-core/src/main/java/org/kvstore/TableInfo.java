package org.kvstore;

import java.nio.file.Path;
import java.util.Map;

/**
 * A table's description and current statistics.
 *
 * @param database the database name
 * @param table the table name
 * @param id the table's id, unique for the life of the store (names can be reused after a drop)
 * @param engine the engine name, lower case
 * @param properties every property with its effective value (given or default)
 * @param durability the table's effective durability ({@code null} for a table that is not durable)
 * @param entryEstimate approximate number of keys
 * @param bytesOnDisk bytes of the table's files
 * @param directory the table's directory
 * @param engineStats engine-specific statistics by name
 *
 * <p>Thread safety: immutable.
 */
public record TableInfo(
    String database,
    String table,
    long id,
    String engine,
    Map<String, String> properties,
    Durability durability,
    long entryEstimate,
    long bytesOnDisk,
    Path directory,
    Map<String, Long> engineStats) {
  public TableInfo {
    properties = Map.copyOf(properties);
    engineStats = Map.copyOf(engineStats);
  }
}
