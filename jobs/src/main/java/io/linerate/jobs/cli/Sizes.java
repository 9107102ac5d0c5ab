package io.linerate.jobs.cli;

import java.util.Locale;

import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;

/** Parsers shared by the job commands: byte sizes, enum names in kebab case, seeds. */
public final class Sizes {
  private Sizes() {
  }

  /** {@code 1048576}, {@code 64k}, {@code 64m}, {@code 2g} (powers of 1024); ≥ 0. */
  public static long parseBytes(CommandSpec spec, String option, String value) {
    String v = value.trim().toLowerCase(Locale.ROOT);
    long unit = 1;
    if (v.endsWith("k") || v.endsWith("m") || v.endsWith("g")) {
      unit = switch (v.charAt(v.length() - 1)) {
        case 'k' -> 1L << 10;
        case 'm' -> 1L << 20;
        default -> 1L << 30;
      };
      v = v.substring(0, v.length() - 1);
    }
    try {
      long n = Long.parseLong(v);
      if (n < 0) {
        throw new NumberFormatException();
      }
      return Math.multiplyExact(n, unit);
    } catch (NumberFormatException | ArithmeticException e) {
      throw new ParameterException(spec.commandLine(), option + " must be a number of bytes >= 0 (suffix k, m, "
          + "g allowed), got '" + value + "'");
    }
  }

  /** An enum constant from its name in any case, '-' for '_'. */
  public static <E extends Enum<E>> E parseEnum(CommandSpec spec, String option, String value, Class<E> type) {
    String v = value.trim().replace('-', '_');
    for (E e : type.getEnumConstants()) {
      if (e.name().equalsIgnoreCase(v)) {
        return e;
      }
    }
    StringBuilder names = new StringBuilder();
    for (E e : type.getEnumConstants()) {
      names.append(names.length() == 0 ? "" : ", ").append(e.name().toLowerCase(Locale.ROOT).replace('_', '-'));
    }
    throw new ParameterException(spec.commandLine(), option + " must be one of " + names + ", got '" + value + "'");
  }

  /** A 64-bit seed: decimal (signed) or {@code 0x} followed by up to 16 hex digits. */
  public static long parseSeed(CommandSpec spec, String option, String value) {
    String v = value.trim();
    try {
      if (v.startsWith("0x") || v.startsWith("0X")) {
        return Long.parseUnsignedLong(v.substring(2), 16);
      }
      return Long.parseLong(v);
    } catch (NumberFormatException e) {
      throw new ParameterException(spec.commandLine(), option + " must be a 64-bit integer (decimal or 0x-hex), "
          + "got '" + value + "'");
    }
  }
}
