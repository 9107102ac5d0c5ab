package io.linerate.jobs.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;

/**
 * The embedded broker starts and serves in a JVM whose default locale is Turkish ({@link BrokerLocale}): Kafka's
 * own configuration code fails there without it.
 */
class BrokerLocaleTest {

  @Test
  void onlyTheDottedIAndDotlessILanguagesMapAsciiCaseDifferently() {
    assertThat(BrokerLocale.mapsAsciiCaseDifferently(Locale.forLanguageTag("tr-TR"))).isTrue();
    assertThat(BrokerLocale.mapsAsciiCaseDifferently(Locale.forLanguageTag("az"))).isTrue();
    for (String tag : List.of("en-US", "de-DE", "fr-FR", "lt-LT", "ar-EG", "ja-JP", "und")) {
      assertThat(BrokerLocale.mapsAsciiCaseDifferently(Locale.forLanguageTag(tag))).as(tag).isFalse();
    }
  }

  /**
   * A new JVM started with {@code -Duser.language=tr -Duser.country=TR}, as on a machine set up in Turkish, runs
   * {@link TurkishBroker}: the broker starts, takes a transaction and a read_committed read, does both again after
   * a restart, and the JVM's default locale is Turkish again afterwards. Without {@link BrokerLocale} the broker does not start
   * ("No enum constant ...GroupType.CLASSİC").
   */
  @Test
  void theBrokerStartsAndServesUnderATurkishDefaultLocale() throws Exception {
    List<String> command = List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-Duser.language=tr", "-Duser.country=TR", "-cp", System.getProperty("java.class.path"),
        TurkishBroker.class.getName());
    Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(120, TimeUnit.SECONDS)).as(out).isTrue();
    assertThat(p.exitValue()).as(out).isZero();
    assertThat(out).contains("default locale before: tr_TR", "read back: [bir, iki]", "after a restart: [bir, iki]",
        "default locale after: tr_TR");
  }

  /** The child JVM's program (a main, so that the default locale is the JVM's from its start). */
  public static final class TurkishBroker {

    public static void main(String[] args) throws Exception {
      System.out.println("default locale before: " + Locale.getDefault());
      try (EmbeddedKafka kafka = EmbeddedKafka.builder().shutdownHook(false).progress(line -> { }).start()) {
        kafka.createTopic("yerel", 1);
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(Map.of(
            ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers(),
            ProducerConfig.TRANSACTIONAL_ID_CONFIG, "turkish-locale",
            ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName(),
            ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName()))) {
          producer.initTransactions();
          producer.beginTransaction();
          producer.send(new ProducerRecord<>("yerel", "bir"));
          producer.send(new ProducerRecord<>("yerel", "iki"));
          producer.commitTransaction();
        }
        System.out.println("read back: " + TopicReader.readAll(kafka.bootstrapServers(), "yerel", true));
        kafka.restart(Duration.ZERO);
        System.out.println("after a restart: " + TopicReader.readAll(kafka.bootstrapServers(), "yerel", true));
      }
      System.out.println("default locale after: " + Locale.getDefault());
    }
  }
}
