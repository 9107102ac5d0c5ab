package io.linerate.jobs.cli;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/**
 * Reads a duration option: a number and a unit ({@code 500ms}, {@code 10s}, {@code 5m}, {@code 2h}, {@code 1d}) or
 * an ISO-8601 duration ({@code PT10S}). A bare number is refused: its unit would be a guess.
 */
public final class DurationConverter implements ITypeConverter<Duration> {

  private static final Pattern NUMBER_AND_UNIT = Pattern.compile("(\\d+)\\s*(ms|s|m|h|d)");

  @Override
  public Duration convert(String value) {
    return parse(value);
  }

  /**
   * {@link #convert(String)} as a static method. A duration must fit 64-bit milliseconds (Flink's timers, watermark
   * strategies and configuration hold milliseconds): beyond, it is refused here rather than overflowing once the job
   * runs.
   */
  public static Duration parse(String value) {
    Duration d = parseAny(value);
    try {
      d.toMillis();
    } catch (ArithmeticException e) {
      throw new TypeConversionException("'" + value + "' is longer than 64-bit milliseconds can hold ("
          + Long.MAX_VALUE + " ms, about 292 million years)");
    }
    return d;
  }

  private static Duration parseAny(String value) {
    String text = value.trim().toLowerCase(Locale.ROOT);
    Matcher m = NUMBER_AND_UNIT.matcher(text);
    try {
      if (m.matches()) {
        long n = Long.parseLong(m.group(1));
        switch (m.group(2)) {
          case "ms": return Duration.ofMillis(n);
          case "s": return Duration.ofSeconds(n);
          case "m": return Duration.ofMinutes(n);
          case "h": return Duration.ofHours(n);
          default: return Duration.ofDays(n);
        }
      }
      if (text.startsWith("p")) {
        return Duration.parse(value.trim());
      }
    } catch (NumberFormatException | ArithmeticException | DateTimeParseException e) {
      // fall through to the error below
    }
    throw new TypeConversionException("'" + value + "' is not a duration (e.g. 500ms, 10s, 5m, 2h, 1d, PT10S)");
  }

  /** Prints a duration the way this converter reads it: {@code 10s}, {@code 500ms}, {@code 5m}. */
  public static String format(Duration d) {
    if (d.isZero()) {
      return "0s";
    }
    long ms = d.toMillis();
    if (ms % 86_400_000 == 0) {
      return ms / 86_400_000 + "d";
    }
    if (ms % 3_600_000 == 0) {
      return ms / 3_600_000 + "h";
    }
    if (ms % 60_000 == 0) {
      return ms / 60_000 + "m";
    }
    if (ms % 1_000 == 0) {
      return ms / 1_000 + "s";
    }
    return ms + "ms";
  }
}
