package io.linerate.jobs.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import io.linerate.jobs.cli.Main;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * linerate under a Turkish default locale, where Kafka's broker and Flink's Kafka connector change the case of ASCII
 * names wrongly ({@link AsciiCaseLocale}): the embedded broker starts, serves and restarts, and a job reads from it
 * and writes to it.
 */
class TurkishLocaleTest {

  private static final Duration CHILD_TIMEOUT = Duration.ofSeconds(240);

  @Test
  void onlyTheDottedIAndDotlessILanguagesMapAsciiCaseDifferently() {
    assertThat(AsciiCaseLocale.mapsAsciiCaseDifferently(Locale.forLanguageTag("tr-TR"))).isTrue();
    assertThat(AsciiCaseLocale.mapsAsciiCaseDifferently(Locale.forLanguageTag("az"))).isTrue();
    for (String tag : List.of("en-US", "de-DE", "fr-FR", "lt-LT", "ar-EG", "ja-JP", "und")) {
      assertThat(AsciiCaseLocale.mapsAsciiCaseDifferently(Locale.forLanguageTag(tag))).as(tag).isFalse();
    }
  }

  /**
   * A new JVM started with {@code -Duser.language=tr -Duser.country=TR}, as on a machine set up in Turkish, runs
   * {@link InTurkish}: the embedded broker starts, takes a transaction and a read_committed read, does both again
   * after a restart; then {@code linerate dedup --bounded} (its own local Flink cluster) reads 20 events of which 5
   * repeat and writes 15 to its output topic and 5 to its duplicates topic; the JVM's default locale is Turkish
   * throughout. Without {@link AsciiCaseLocale} the broker does not start ("No enum constant
   * ...GroupType.CLASSİC"), and with it only for the broker, the job fails ("Invalid value earlıest for
   * configuration auto.offset.reset").
   */
  @Test
  @Timeout(300)
  void theBrokerAndAJobRunUnderATurkishDefaultLocale() throws Exception {
    List<String> command = List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        // C1 only, as in this module's test JVMs (jobs/pom.xml): the child mostly starts a broker and a cluster
        "-XX:TieredStopAtLevel=1",
        "-Duser.language=tr", "-Duser.country=TR", "-Djava.io.tmpdir=" + System.getProperty("java.io.tmpdir"),
        "-cp", System.getProperty("java.class.path"), InTurkish.class.getName());
    Path output = Files.createTempFile("turkish-locale-", ".out");
    Process p = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(output.toFile()).start();
    boolean ended;
    try {
      ended = p.waitFor(CHILD_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
    } finally {
      p.destroyForcibly().waitFor(30, TimeUnit.SECONDS); // a job that fails on every restart would not end
    }
    String out = Files.readString(output, StandardCharsets.UTF_8);
    Files.delete(output);
    assertThat(ended).as("ended within " + CHILD_TIMEOUT + ": " + out).isTrue();
    assertThat(p.exitValue()).as(out).isZero();
    assertThat(out).contains("default locale before: tr_TR", "read back: [bir, iki]", "after a restart: [bir, iki]",
        "dedup exit code 0", "unique 15, duplicates 5", "default locale after: tr_TR");
  }

  /** The child JVM's program (a main, so that the default locale is the JVM's from its start). */
  public static final class InTurkish {

    public static void main(String[] args) throws Exception {
      System.out.println("default locale before: " + Locale.getDefault());
      try (EmbeddedKafka kafka = EmbeddedKafka.builder().shutdownHook(false).progress(line -> { }).start()) {
        String servers = kafka.bootstrapServers();
        kafka.createTopics(1, "yerel", "olaylar", "tekil", "tekrar", "hatali");
        try (KafkaProducer<String, String> producer = producer(servers, "turkish-locale")) {
          producer.initTransactions();
          producer.beginTransaction();
          producer.send(new ProducerRecord<>("yerel", "bir"));
          producer.send(new ProducerRecord<>("yerel", "iki"));
          for (int i = 0; i < 20; i++) {
            int id = i < 15 ? i : i - 15; // the last 5 repeat the first 5
            producer.send(new ProducerRecord<>("olaylar", "{\"id\":\"e" + id + "\",\"ts\":" + (1_763_720_000_000L + i)
                + "}"));
          }
          producer.commitTransaction();
        }
        System.out.println("read back: " + TopicReader.readAll(servers, "yerel", true));
        kafka.restart(Duration.ZERO);
        System.out.println("after a restart: " + TopicReader.readAll(servers, "yerel", true));

        int exit = Main.commandLine().execute("dedup", "--bootstrap-servers", servers, "--input-topic", "olaylar",
            "--output-topic", "tekil", "--duplicates-topic", "tekrar", "--dead-letter-topic", "hatali",
            "--parallelism", "1", "--timestamp-field", "ts", "--idleness", "0s", "--bounded");
        System.out.println("dedup exit code " + exit);
        System.out.println("unique " + TopicReader.readAll(servers, "tekil", true).size() + ", duplicates "
            + TopicReader.readAll(servers, "tekrar", true).size());
      }
      System.out.println("default locale after: " + Locale.getDefault());
    }

    private static KafkaProducer<String, String> producer(String servers, String transactionalId) {
      return new KafkaProducer<>(Map.of(
          ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, servers,
          ProducerConfig.TRANSACTIONAL_ID_CONFIG, transactionalId,
          ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName(),
          ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName()));
    }
  }
}
