package io.linerate.jobs.kafka;

import java.util.Locale;
import java.util.function.Supplier;

/**
 * Builds the embedded broker's configuration under {@link Locale#ROOT} where the JVM's default locale maps the ASCII
 * letters {@code i} and {@code I} to other cases (Turkish, Azerbaijani).
 *
 * <p>Why: Kafka's {@code KafkaConfig} upper-cases the names in {@code group.coordinator.rebalance.protocols} with
 * {@code String.toUpperCase()}, the default locale's rules, and looks them up as enum constants (Kafka 4.2.0; the
 * same line is in Kafka's newest source). Under a Turkish locale {@code "classic"} becomes {@code "CLASSİC"}, with
 * a dotted capital I, no such constant exists, and the broker does not start ("No enum constant ...GroupType.CLASSİC").
 * Upper-case names in the setting do not help: its validator accepts only the lower-case ones. The server builds
 * more configurations while it is constructed ({@code KafkaRaftServer}'s {@code SharedServer}), and its controller
 * fails to start the same way, so the embedded broker constructs and starts its server (first start and restarts)
 * under this too. Once started, the broker served a transaction and read_committed reads under a Turkish locale
 * ({@code BrokerLocaleTest}).
 *
 * <p>{@link Locale#setDefault} is global to the JVM: for the few milliseconds the configuration takes, other threads
 * see {@code Locale.ROOT} too. Every category's default is restored afterwards.
 */
final class BrokerLocale {

  private BrokerLocale() {
  }

  /** Whether {@code locale} upper-cases {@code i} or lower-cases {@code I} to anything but their ASCII pair. */
  static boolean mapsAsciiCaseDifferently(Locale locale) {
    return !"I".equals("i".toUpperCase(locale)) || !"i".equals("I".toLowerCase(locale));
  }

  /** Runs {@code action} as {@link #underAsciiCaseMapping(Supplier)} does. */
  static void underAsciiCaseMapping(Runnable action) {
    underAsciiCaseMapping(() -> {
      action.run();
      return null;
    });
  }

  /** {@code build}'s result, computed under {@link Locale#ROOT} if the default locale maps the ASCII case differently. */
  static <T> T underAsciiCaseMapping(Supplier<T> build) {
    synchronized (BrokerLocale.class) {
      Locale general = Locale.getDefault();
      if (!mapsAsciiCaseDifferently(general)) {
        return build.get();
      }
      Locale display = Locale.getDefault(Locale.Category.DISPLAY);
      Locale format = Locale.getDefault(Locale.Category.FORMAT);
      Locale.setDefault(Locale.ROOT);
      try {
        return build.get();
      } finally {
        Locale.setDefault(general);
        Locale.setDefault(Locale.Category.DISPLAY, display);
        Locale.setDefault(Locale.Category.FORMAT, format);
      }
    }
  }
}
