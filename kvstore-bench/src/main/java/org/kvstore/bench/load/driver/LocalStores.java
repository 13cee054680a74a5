package org.kvstore.bench.load.driver;

import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import org.kvstore.Durability;

/**
 * The stores that run in this JVM, by name: KVStore's {@code lsm}, {@code bplus} and {@code memory}
 * engines, and {@code rocksdb}.
 *
 * <p>Thread safety: stateless.
 */
public final class LocalStores {
  public static final List<String> NAMES = List.of("lsm", "bplus", "memory", "rocksdb");

  private LocalStores() {}

  public static boolean isLocal(String name) {
    return NAMES.contains(name.toLowerCase(Locale.ROOT));
  }

  public static Driver open(String name, Path dir, Durability durability, StoreSizes sizes) {
    String n = name.toLowerCase(Locale.ROOT);
    return switch (n) {
      case "lsm", "bplus", "memory" -> EmbeddedDriver.open(dir, n, durability, sizes);
      case "rocksdb" -> RocksDbDriver.open(dir, durability, sizes);
      default -> throw new IllegalArgumentException("store '" + name + "' is not one of " + String.join(", ", NAMES));
    };
  }
}
