package org.kvstore.spi;

import java.util.Locale;
import java.util.Objects;
import java.util.function.Function;

/**
 * One typed, validated table property: its name, default, allowed range and a one-line description.
 * Engines declare their properties as constants of this type; the core parses the user's
 * {@link java.util.Properties} once against them into {@link TableProperties}.
 *
 * <p>Thread safety: immutable.
 *
 * @param <T> the parsed value type
 */
public final class PropertySpec<T> {
  private final String name;
  private final T defaultValue;
  private final String allowed;
  private final String description;
  private final Function<String, T> parser;

  private PropertySpec(
      String name, T defaultValue, String allowed, String description, Function<String, T> parser) {
    this.name = Objects.requireNonNull(name);
    this.defaultValue = Objects.requireNonNull(defaultValue);
    this.allowed = allowed;
    this.description = description;
    this.parser = parser;
  }

  /** An integer in {@code [min, max]}. */
  public static PropertySpec<Integer> ofInt(
      String name, int defaultValue, int min, int max, String description) {
    return new PropertySpec<>(
        name, defaultValue, "an integer from " + min + " to " + max, description,
        text -> {
          long v = parseLong(text);
          if (v < min || v > max) {
            throw new IllegalArgumentException("must be from " + min + " to " + max);
          }
          return (int) v;
        });
  }

  /**
   * A size in bytes in {@code [min, max]}; accepts a plain number or a number with a suffix
   * {@code KiB}, {@code MiB}, {@code GiB} (also {@code k}, {@code m}, {@code g}, {@code kb}, {@code mb},
   * {@code gb}, all binary).
   */
  public static PropertySpec<Long> ofBytes(
      String name, long defaultValue, long min, long max, String description) {
    return new PropertySpec<>(
        name, defaultValue, "a size in bytes from " + min + " to " + max + " (suffixes KiB, MiB, GiB)",
        description,
        text -> {
          long v = parseBytes(text);
          if (v < min || v > max) {
            throw new IllegalArgumentException("must be from " + min + " to " + max + " bytes");
          }
          return v;
        });
  }

  /** A number in the open-closed interval {@code (minExclusive, maxInclusive]}. */
  public static PropertySpec<Double> ofDouble(
      String name, double defaultValue, double minExclusive, double maxInclusive, String description) {
    return new PropertySpec<>(
        name, defaultValue, "a number above " + minExclusive + " and at most " + maxInclusive,
        description,
        text -> {
          double v;
          try {
            v = Double.parseDouble(text.trim());
          } catch (NumberFormatException e) {
            throw new IllegalArgumentException("'" + text + "' is not a number");
          }
          if (!(v > minExclusive && v <= maxInclusive)) {
            throw new IllegalArgumentException(
                "must be above " + minExclusive + " and at most " + maxInclusive);
          }
          return v;
        });
  }

  /** {@code true} or {@code false}. */
  public static PropertySpec<Boolean> ofBoolean(String name, boolean defaultValue, String description) {
    return new PropertySpec<>(
        name, defaultValue, "true or false", description,
        text -> {
          String t = text.trim().toLowerCase(Locale.ROOT);
          if (t.equals("true")) {
            return true;
          }
          if (t.equals("false")) {
            return false;
          }
          throw new IllegalArgumentException("'" + text + "' is neither true nor false");
        });
  }

  /** One constant of {@code type}, matched case-insensitively by its lower-case, dash-separated name. */
  public static <E extends Enum<E>> PropertySpec<E> ofEnum(
      String name, Class<E> type, E defaultValue, String description) {
    StringBuilder names = new StringBuilder();
    for (E e : type.getEnumConstants()) {
      names.append(names.length() == 0 ? "" : ", ").append(enumName(e));
    }
    String allowed = "one of " + names;
    return new PropertySpec<>(
        name, defaultValue, allowed, description,
        text -> {
          for (E e : type.getEnumConstants()) {
            if (enumName(e).equalsIgnoreCase(text.trim()) || e.name().equalsIgnoreCase(text.trim())) {
              return e;
            }
          }
          throw new IllegalArgumentException("'" + text + "' is not " + allowed);
        });
  }

  /** The external name of an enum constant: lower case, underscores as dashes. */
  public static String enumName(Enum<?> e) {
    return e.name().toLowerCase(Locale.ROOT).replace('_', '-');
  }

  public String name() {
    return name;
  }

  public T defaultValue() {
    return defaultValue;
  }

  /** What values are allowed, in words, for error messages. */
  public String allowed() {
    return allowed;
  }

  public String description() {
    return description;
  }

  /** Parses and validates {@code text}. @throws IllegalArgumentException saying why it is invalid */
  public T parse(String text) {
    return parser.apply(text);
  }

  /** Renders a value the way {@link #parse} reads it back. */
  public String format(Object value) {
    return value instanceof Enum<?> e ? enumName(e) : String.valueOf(value);
  }

  @Override
  public String toString() {
    return name + " (default " + format(defaultValue) + "; " + allowed + ")";
  }

  private static long parseLong(String text) {
    try {
      return Long.parseLong(text.trim().replace("_", ""));
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("'" + text + "' is not an integer");
    }
  }

  static long parseBytes(String text) {
    String t = text.trim().replace("_", "").toLowerCase(Locale.ROOT);
    long unit = 1;
    String[][] suffixes = {
      {"kib", "1024"}, {"mib", "1048576"}, {"gib", "1073741824"},
      {"kb", "1024"}, {"mb", "1048576"}, {"gb", "1073741824"},
      {"k", "1024"}, {"m", "1048576"}, {"g", "1073741824"}, {"b", "1"},
    };
    for (String[] s : suffixes) {
      if (t.endsWith(s[0])) {
        unit = Long.parseLong(s[1]);
        t = t.substring(0, t.length() - s[0].length()).trim();
        break;
      }
    }
    long v;
    try {
      v = Long.parseLong(t);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("'" + text + "' is not a size in bytes");
    }
    if (v < 0 || v > Long.MAX_VALUE / unit) {
      throw new IllegalArgumentException("'" + text + "' is out of range");
    }
    return v * unit;
  }
}
