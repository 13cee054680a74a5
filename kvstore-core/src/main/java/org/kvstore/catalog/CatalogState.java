package org.kvstore.catalog;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * One version of the catalog: the databases, their tables, and the next table id. Changes make a new
 * state; the old one stays valid for whoever holds it.
 *
 * <p>Thread safety: immutable.
 */
public final class CatalogState {
  private final long nextTableId;
  private final SortedMap<String, SortedMap<String, TableDescriptor>> databases;

  public CatalogState(long nextTableId, Map<String, ? extends Map<String, TableDescriptor>> databases) {
    this.nextTableId = nextTableId;
    SortedMap<String, SortedMap<String, TableDescriptor>> copy = new TreeMap<>();
    databases.forEach(
        (db, tables) -> copy.put(db, Collections.unmodifiableSortedMap(new TreeMap<>(tables))));
    this.databases = Collections.unmodifiableSortedMap(copy);
  }

  public static CatalogState empty() {
    return new CatalogState(1, Map.of());
  }

  public long nextTableId() {
    return nextTableId;
  }

  public SortedMap<String, SortedMap<String, TableDescriptor>> databases() {
    return databases;
  }

  public boolean hasDatabase(String db) {
    return databases.containsKey(db);
  }

  /** The table, or {@code null}. */
  public TableDescriptor table(String db, String table) {
    SortedMap<String, TableDescriptor> tables = databases.get(db);
    return tables == null ? null : tables.get(table);
  }

  public List<TableDescriptor> allTables() {
    List<TableDescriptor> out = new ArrayList<>();
    databases.values().forEach(t -> out.addAll(t.values()));
    return out;
  }

  public CatalogState withDatabase(String db) {
    Map<String, SortedMap<String, TableDescriptor>> copy = new TreeMap<>(databases);
    copy.put(db, new TreeMap<>());
    return new CatalogState(nextTableId, copy);
  }

  public CatalogState withoutDatabase(String db) {
    Map<String, SortedMap<String, TableDescriptor>> copy = new TreeMap<>(databases);
    copy.remove(db);
    return new CatalogState(nextTableId, copy);
  }

  /** Adds {@code t} (whose id must be {@link #nextTableId()}) and advances the next id. */
  public CatalogState withTable(TableDescriptor t) {
    Map<String, SortedMap<String, TableDescriptor>> copy = new TreeMap<>(databases);
    SortedMap<String, TableDescriptor> tables = new TreeMap<>(copy.get(t.database()));
    tables.put(t.name(), t);
    copy.put(t.database(), tables);
    return new CatalogState(Math.max(nextTableId, t.id() + 1), copy);
  }

  public CatalogState withoutTable(String db, String table) {
    Map<String, SortedMap<String, TableDescriptor>> copy = new TreeMap<>(databases);
    SortedMap<String, TableDescriptor> tables = new TreeMap<>(copy.get(db));
    tables.remove(table);
    copy.put(db, tables);
    return new CatalogState(nextTableId, copy);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof CatalogState c && c.nextTableId == nextTableId && c.databases.equals(databases);
  }

  @Override
  public int hashCode() {
    return Long.hashCode(nextTableId) * 31 + databases.hashCode();
  }

  @Override
  public String toString() {
    return "CatalogState{nextTableId=" + nextTableId + ", databases=" + databases + "}";
  }
}
