package org.kvstore.bench.load.cli;

import java.time.Duration;
import java.util.Locale;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/** Parses {@code 500ms}, {@code 10s}, {@code 3m}, {@code 1h} or ISO-8601 ({@code PT10S}). Thread safety: stateless. */
final class DurationConverter implements ITypeConverter<Duration> {
  @Override
  public Duration convert(String value) {
    String v = value.trim().toLowerCase(Locale.ROOT);
    try {
      if (v.startsWith("pt")) {
        return Duration.parse(value.trim());
      }
      if (v.endsWith("ms")) {
        return Duration.ofMillis(Long.parseLong(v.substring(0, v.length() - 2)));
      }
      long n = Long.parseLong(v.substring(0, v.length() - 1));
      return switch (v.charAt(v.length() - 1)) {
        case 's' -> Duration.ofSeconds(n);
        case 'm' -> Duration.ofMinutes(n);
        case 'h' -> Duration.ofHours(n);
        default -> throw new TypeConversionException("'" + value + "' is not a duration such as 500ms, 10s, 3m");
      };
    } catch (RuntimeException e) {
      if (e instanceof TypeConversionException t) {
        throw t;
      }
      throw new TypeConversionException("'" + value + "' is not a duration such as 500ms, 10s, 3m");
    }
  }
}
