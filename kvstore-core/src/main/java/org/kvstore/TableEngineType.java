package org.kvstore;

import java.util.Locale;

/**
 * The table engines that ship with KVStore. {@link #toString()} is the engine name that
 * {@link KVStore#createTable} takes (engine names are case-insensitive, so {@code "LSM"} works too).
 */
public enum TableEngineType {
  /** Read-optimised B+tree over a page buffer (module kvstore-bplus). */
  BPLUS,
  /** Write-optimised log-structured merge tree (module kvstore-lsm). */
  LSM,
  /** In-memory skip list; not durable. */
  MEMORY;

  @Override
  public String toString() {
    return name().toLowerCase(Locale.ROOT);
  }
}
