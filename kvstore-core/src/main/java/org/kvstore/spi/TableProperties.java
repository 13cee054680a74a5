package org.kvstore.spi;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.kvstore.InvalidArgumentException;

/**
 * A table's properties, parsed once against the specs that apply to it (the core's and its
 * engine's) and validated: every spec has a value (given or default), and no unknown name got
 * through.
 *
 * <p>Thread safety: immutable.
 */
public final class TableProperties {
  private final Map<String, Object> values;
  private final Map<String, String> given;

  private TableProperties(Map<String, Object> values, Map<String, String> given) {
    this.values = Collections.unmodifiableMap(values);
    this.given = Collections.unmodifiableMap(given);
  }

  /**
   * Parses {@code properties} against {@code specs}. Keys and values may be any objects (the
   * KeksDB-style {@code properties.put(name, 400)} works); both are read through {@code toString()}.
   *
   * @throws InvalidArgumentException for an unknown name or a bad value; the message lists every
   *     valid property with its default
   */
  public static TableProperties parse(
      String engine, List<PropertySpec<?>> specs, Map<?, ?> properties) {
    Map<String, PropertySpec<?>> byName = new LinkedHashMap<>();
    for (PropertySpec<?> spec : specs) {
      byName.put(spec.name(), spec);
    }
    Map<String, Object> values = new LinkedHashMap<>();
    Map<String, String> given = new LinkedHashMap<>();
    for (Map.Entry<?, ?> e : properties.entrySet()) {
      String name = String.valueOf(e.getKey()).trim();
      String text = String.valueOf(e.getValue());
      PropertySpec<?> spec = byName.get(name);
      if (spec == null) {
        throw new InvalidArgumentException(
            "table property",
            "unknown property '" + name + "' for engine " + engine + "; valid properties: "
                + describe(specs));
      }
      try {
        values.put(name, spec.parse(text));
        given.put(name, text.trim());
      } catch (IllegalArgumentException ex) {
        throw new InvalidArgumentException(
            "table property",
            "bad value '" + text + "' for '" + name + "' of engine " + engine + ": "
                + ex.getMessage() + "; valid properties: " + describe(specs));
      }
    }
    for (PropertySpec<?> spec : specs) {
      values.putIfAbsent(spec.name(), spec.defaultValue());
    }
    return new TableProperties(values, given);
  }

  /** Shorthand for {@link #parse(String, List, Map)} with {@link Properties}. */
  public static TableProperties parse(String engine, List<PropertySpec<?>> specs, Properties p) {
    return parse(engine, specs, (Map<?, ?>) (p == null ? new Properties() : p));
  }

  /** The value of {@code spec}: the one given or its default. */
  public <T> T get(PropertySpec<T> spec) {
    Object v = values.get(spec.name());
    if (v == null) {
      throw new IllegalArgumentException(
          "property " + spec.name() + " is not one of this table's properties " + values.keySet());
    }
    @SuppressWarnings("unchecked")
    T t = (T) v;
    return t;
  }

  /** The properties the user set, as text (what the catalog stores). */
  public Map<String, String> given() {
    return given;
  }

  /** All effective values, given or default, rendered as text. */
  public Map<String, String> effective(List<PropertySpec<?>> specs) {
    Map<String, String> out = new LinkedHashMap<>();
    for (PropertySpec<?> spec : specs) {
      out.put(spec.name(), spec.format(values.get(spec.name())));
    }
    return out;
  }

  static String describe(List<PropertySpec<?>> specs) {
    if (specs.isEmpty()) {
      return "(none)";
    }
    StringBuilder sb = new StringBuilder();
    for (PropertySpec<?> spec : specs) {
      sb.append(sb.length() == 0 ? "" : ", ").append(spec);
    }
    return sb.toString();
  }
}
