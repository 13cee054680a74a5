package org.kvstore.server;

import java.util.Locale;
import java.util.Objects;
import java.util.function.Function;
import java.util.function.Supplier;
import org.kvstore.InvalidArgumentException;

/**
 * One server setting, declared once in {@link ServerConfig#SETTINGS}: its key (the config-file key,
 * and the flag after {@code --}), the value's label and help text for {@code --help}, its default
 * and the default as {@code --help} and docs/server.md show it, how its text is parsed, and which
 * values are valid. The flags, the file keys, validation and {@code --help} are all built from
 * these declarations, so a setting cannot be accepted in one place and unknown in another.
 *
 * <p>Thread safety: immutable.
 *
 * @param <T> the value's type
 */
public final class Setting<T> {
  /** Why a parsed value is invalid, or null when it is valid. */
  @FunctionalInterface
  interface Check<T> {
    String problem(T value);
  }

  private final String key;
  private final String paramLabel;
  private final String help;
  private final Supplier<T> defaultValue;
  private final String defaultText;
  private final Function<String, T> parser;
  private final Function<T, String> format;
  private final Check<T> check;
  private final boolean secret;

  private Setting(String key, String paramLabel, String help, Supplier<T> defaultValue, String defaultText,
      Function<String, T> parser, Function<T, String> format, Check<T> check, boolean secret) {
    this.key = key;
    this.paramLabel = paramLabel;
    this.help = help;
    this.defaultValue = defaultValue;
    this.defaultText = defaultText;
    this.parser = parser;
    this.format = format;
    this.check = check;
    this.secret = secret;
  }

  /** The config-file key, which is also the flag without its {@code --}, e.g. {@code resp-port}. */
  public String key() {
    return key;
  }

  /** The flag, e.g. {@code --resp-port}. */
  public String flag() {
    return "--" + key;
  }

  /** The value's name in {@code --help}, e.g. {@code PORT}. */
  public String paramLabel() {
    return paramLabel;
  }

  /** The one-line help text, without the default. */
  public String help() {
    return help;
  }

  /** The default as {@code --help} and the settings table in docs/server.md show it. */
  public String defaultText() {
    return defaultText;
  }

  /** The value when neither the file nor a flag sets it (some depend on the heap size). */
  public T defaultValue() {
    return defaultValue.get();
  }

  /** Whether the value must not be shown (the password). */
  public boolean secret() {
    return secret;
  }

  /**
   * The value of {@code text} (as given in the file or after the flag), validated.
   *
   * @throws InvalidArgumentException naming the setting and the text, if it is malformed or invalid
   */
  public T parse(String text) {
    String given = text == null ? "" : secret ? text : text.trim();
    T value = parser.apply(given);
    return validate(value, "'" + given + "'");
  }

  /**
   * {@code value} itself if it is valid.
   *
   * @throws InvalidArgumentException naming the setting and the value otherwise
   */
  public T validate(T value) {
    return validate(value, value == null ? "none" : "'" + format(value) + "'");
  }

  private T validate(T value, String shown) {
    String problem = check.problem(value);
    if (problem != null) {
      throw new InvalidArgumentException(key, problem + ", was " + (secret ? "***" : shown));
    }
    return value;
  }

  /** {@code value} as text that {@link #parse} reads back (sizes with a unit suffix). */
  public String format(T value) {
    return value == null ? "" : format.apply(value);
  }

  @Override
  public String toString() {
    return key;
  }

  // ---- Kinds of settings ----

  /** A setting whose value is the text itself (trimmed). */
  static Setting<String> text(String key, String label, String defaultValue, String help, Check<String> check) {
    return new Setting<>(key, label, help, () -> defaultValue, defaultValue, s -> s, s -> s, check, false);
  }

  /** An integer from {@code min} to {@code max}. */
  static Setting<Integer> integer(String key, String label, int defaultValue, int min, int max, String help) {
    return new Setting<>(key, label, help, () -> defaultValue, Integer.toString(defaultValue),
        s -> (int) number(key, s, false), String::valueOf, range(min, max), false);
  }

  /** A byte size, with an optional k/kb/m/mb/g/gb suffix (x1024), that {@code check} accepts. */
  static Setting<Long> size(String key, String label, long defaultValue, String help, Check<Long> check) {
    return new Setting<>(key, label, help, () -> defaultValue, formatSize(defaultValue),
        s -> number(key, s, true), Setting::formatSize, check, false);
  }

  /** A byte size whose default is computed (it depends on the heap) and shown as {@code defaultText}. */
  static Setting<Long> size(String key, String label, Supplier<Long> defaultValue, String defaultText, String help,
      Check<Long> check) {
    return new Setting<>(key, label, help, defaultValue, defaultText, s -> number(key, s, true),
        Setting::formatSize, check, false);
  }

  /** A setting of any other type: parsed by {@code parser}, shown by {@code format}. */
  static <T> Setting<T> of(String key, String label, T defaultValue, String help, Function<String, T> parser,
      Function<T, String> format, Check<T> check) {
    return new Setting<>(key, label, help, () -> defaultValue, defaultValue == null ? "none" : format.apply(defaultValue),
        parser, format, check, false);
  }

  /** Like {@link #of}, with the default shown as {@code defaultText} (e.g. "auto" for a null default). */
  static <T> Setting<T> of(String key, String label, T defaultValue, String defaultText, String help,
      Function<String, T> parser, Function<T, String> format, Check<T> check) {
    return new Setting<>(key, label, help, () -> defaultValue, defaultText, parser, format, check, false);
  }

  /**
   * A secret text, unset by default (shown as "none"): never shown (*** in errors and
   * {@link ServerConfig#toString}) and taken as given, not trimmed, since spaces may belong to it;
   * empty or blank text unsets it.
   */
  static Setting<String> secret(String key, String label, String help) {
    return new Setting<>(key, label, help, () -> null, "none", s -> s.isBlank() ? null : s, s -> s, any(), true);
  }

  static Check<Integer> range(long min, long max) {
    return v -> v >= min && v <= max ? null : "must be from " + min + " to " + max;
  }

  static Check<Long> sizeRange(long min, long max) {
    return v -> v >= min && v <= max ? null : "must be from " + formatSize(min) + " to " + formatSize(max);
  }

  static <T> Check<T> any() {
    return v -> null;
  }

  /** An integer, or with {@code sizes} a byte size with an optional k/kb/m/mb/g/gb suffix (x1024). */
  static long number(String key, String v, boolean sizes) {
    String s = v.toLowerCase(Locale.ROOT);
    long unit = 1;
    if (sizes) {
      String[][] suffixes = {{"gb", "g"}, {"mb", "m"}, {"kb", "k"}};
      long[] units = {1L << 30, 1L << 20, 1L << 10};
      outer:
      for (int i = 0; i < suffixes.length; i++) {
        for (String suf : suffixes[i]) {
          if (s.endsWith(suf)) {
            s = s.substring(0, s.length() - suf.length()).trim();
            unit = units[i];
            break outer;
          }
        }
      }
    }
    try {
      long n = Long.parseLong(s);
      if (sizes && (n > Long.MAX_VALUE / unit || n < Long.MIN_VALUE / unit)) {
        throw new NumberFormatException(v);
      }
      long result = n * unit;
      if (!sizes && (result < Integer.MIN_VALUE || result > Integer.MAX_VALUE)) {
        throw new NumberFormatException(v);
      }
      return result;
    } catch (NumberFormatException e) {
      throw new InvalidArgumentException(key, "'" + v + "' is not " + (sizes ? "a size" : "an integer"));
    }
  }

  /** {@code bytes} with the largest unit suffix that divides it (512mb), or plain. */
  static String formatSize(long bytes) {
    if (bytes != 0) {
      if (bytes % (1L << 30) == 0) {
        return bytes / (1L << 30) + "gb";
      }
      if (bytes % (1L << 20) == 0) {
        return bytes / (1L << 20) + "mb";
      }
      if (bytes % (1L << 10) == 0) {
        return bytes / (1L << 10) + "kb";
      }
    }
    return Long.toString(bytes);
  }

  static String lower(String s) {
    return Objects.requireNonNull(s).toLowerCase(Locale.ROOT);
  }
}
