package org.kvstore.catalog;

import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.Map;
import java.util.TreeMap;

/**
 * A table as the catalog records it.
 *
 * @param id unique for the life of the store, never reused; names the table's directory and tags its
 *     log records
 * @param database the database name
 * @param name the table name
 * @param engine the engine name, lower case
 * @param properties the properties the user gave, as text (defaults are not stored, so a later
 *     release's defaults apply to what was not set)
 *
 * <p>Thread safety: immutable.
 */
public record TableDescriptor(
    @JsonProperty("id") long id,
    @JsonProperty("database") String database,
    @JsonProperty("name") String name,
    @JsonProperty("engine") String engine,
    @JsonProperty("properties") Map<String, String> properties) {

  public TableDescriptor {
    properties = java.util.Collections.unmodifiableMap(new TreeMap<>(properties));
  }

  /** {@code db.table}, for messages. */
  public String qualifiedName() {
    return database + "." + name;
  }
}
