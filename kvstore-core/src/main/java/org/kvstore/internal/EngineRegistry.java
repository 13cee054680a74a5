package org.kvstore.internal;

import java.util.Locale;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.TreeMap;
import org.kvstore.InvalidArgumentException;
import org.kvstore.spi.TableEngine;

/**
 * The table engines on the class path, found by {@link ServiceLoader}, by lower-case name.
 *
 * <p>Thread safety: immutable after construction.
 */
public final class EngineRegistry {
  private final Map<String, TableEngine> engines;

  private EngineRegistry(Map<String, TableEngine> engines) {
    this.engines = engines;
  }

  public static EngineRegistry load() {
    Map<String, TableEngine> engines = new TreeMap<>();
    for (TableEngine e : ServiceLoader.load(TableEngine.class, EngineRegistry.class.getClassLoader())) {
      String name = e.name().toLowerCase(Locale.ROOT);
      TableEngine previous = engines.putIfAbsent(name, e);
      if (previous != null && previous.getClass() != e.getClass()) {
        throw new IllegalStateException(
            "two table engines are named '" + name + "': " + previous.getClass().getName() + " and "
                + e.getClass().getName());
      }
    }
    return new EngineRegistry(engines);
  }

  /**
   * The engine named {@code name}, case-insensitively.
   *
   * @throws InvalidArgumentException naming the available engines when there is none
   */
  public TableEngine get(String name) {
    if (name == null) {
      throw new InvalidArgumentException("engine", "must not be null; available engines: " + names());
    }
    TableEngine e = engines.get(name.toLowerCase(Locale.ROOT));
    if (e == null) {
      throw new InvalidArgumentException(
          "engine", "unknown engine '" + name + "'; available engines: " + names());
    }
    return e;
  }

  public boolean has(String name) {
    return name != null && engines.containsKey(name.toLowerCase(Locale.ROOT));
  }

  /** Names of the available engines, sorted. */
  public String names() {
    return String.join(", ", engines.keySet());
  }

  public java.util.Set<String> nameSet() {
    return java.util.Collections.unmodifiableSet(engines.keySet());
  }
}
