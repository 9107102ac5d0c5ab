package io.linerate.jobs.kafka;

import java.util.Locale;
import java.util.function.Supplier;

/**
 * Runs Kafka and Kafka-connector code that changes the case of ASCII names with the JVM's default locale under
 * {@link Locale#ROOT}, where that locale maps the letters {@code i} and {@code I} to other cases (Turkish,
 * Azerbaijani: {@code "i".toUpperCase()} is {@code "İ"}, {@code "I".toLowerCase()} is {@code "ı"}).
 *
 * <p>Why, found by running the test suite with {@code -Duser.language=tr}:
 * <ul>
 *   <li>Kafka's broker: {@code KafkaConfig} upper-cases the names in {@code group.coordinator.rebalance.protocols}
 *       with {@code String.toUpperCase()} and looks them up as enum constants (Kafka 4.2.0; the same line is in
 *       Kafka's newest source): {@code "classic"} becomes {@code "CLASSİC"}, no such constant exists, and the broker
 *       does not start ("No enum constant ...GroupType.CLASSİC"). Upper-case names in the setting do not help: its
 *       validator accepts only the lower-case ones. The server builds more configurations while it is constructed
 *       ({@code KafkaRaftServer}'s {@code SharedServer}), and its controller fails to start the same way, so
 *       {@link EmbeddedKafka} constructs and starts its server (first start and restarts) under this.</li>
 *   <li>Flink's Kafka connector (5.0.0-2.2): {@code KafkaSourceBuilder.build()} sets {@code auto.offset.reset} to
 *       the starting offsets' strategy name lower-cased with {@code String.toLowerCase()}, overriding any value
 *       given: {@code "EARLIEST"} becomes {@code "earlıest"}, and every reader of the job fails when it creates its
 *       consumer ("Invalid value earlıest for configuration auto.offset.reset"). The value is computed where the
 *       job is built, so {@link ExactlyOnceSource#build()} builds under this.</li>
 * </ul>
 *
 * <p>{@link Locale#setDefault} is global to the JVM: while the code runs, other threads see {@code Locale.ROOT} too.
 * Every category's default is restored afterwards. {@code TurkishLocaleTest} runs a broker and a job in a JVM
 * started with a Turkish default locale.
 */
final class AsciiCaseLocale {

  private AsciiCaseLocale() {
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

  /**
   * {@code build}'s result, computed under {@link Locale#ROOT} if the default locale maps the ASCII case differently.
   */
  static <T> T underAsciiCaseMapping(Supplier<T> build) {
    synchronized (AsciiCaseLocale.class) {
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
