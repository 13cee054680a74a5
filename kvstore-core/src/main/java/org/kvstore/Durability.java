package org.kvstore;

/**
 * When a write is acknowledged relative to the fsync of its write-ahead-log record. In every mode the
 * record is written to the log file ({@code write()}) before the write returns, so killing the
 * process (kill -9) never loses an acknowledged write; the modes differ only on power loss. See
 * docs/durability.md.
 */
public enum Durability {
  /** Acknowledged after the record is fsynced (group commit). Power loss loses nothing acknowledged. */
  SYNC,
  /** fsync every {@link StoreOptions#syncInterval()}; power loss loses at most that suffix, never a hole. */
  PERIODIC,
  /** Never fsync the log; power loss may lose a suffix up to the kernel's writeback, never a hole. */
  NONE;

  /** Parses {@code sync}, {@code periodic} or {@code none}, case-insensitively. */
  public static Durability parse(String text) {
    for (Durability d : values()) {
      if (d.name().equalsIgnoreCase(text.trim())) {
        return d;
      }
    }
    throw new InvalidArgumentException(
        "durability", "'" + text + "' is not one of sync, periodic, none");
  }
}
