package io.linerate.jobs.dedup;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.Map;

import io.linerate.jobs.cli.Main;
import io.linerate.jobs.kafka.KafkaBrokerExtension;
import io.linerate.jobs.kafka.TopicReader;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import picocli.CommandLine;

/**
 * A bounded run whose every record is a dead letter (here: events without the timestamp field the command was told
 * to read, as when the options do not match the data) exits 1 saying so; it exited 0 with nothing counted before.
 * The job runs on a local cluster in this JVM against the embedded broker.
 */
class AllDeadLettersCommandTest {

  @RegisterExtension static final KafkaBrokerExtension KAFKA = new KafkaBrokerExtension();

  @Test
  @Timeout(120)
  void aBoundedRunOfDeadLettersOnlyExitsNonZeroSayingSo() {
    KAFKA.broker().createTopics(1, "dl-in", "dl-out", "dl-dups", "dl-dead");
    try (KafkaProducer<String, String> producer = new KafkaProducer<>(Map.of(
        ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, KAFKA.bootstrapServers(),
        ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName(),
        ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName()))) {
      for (int i = 0; i < 50; i++) { // the time is in "time", the command reads "ts"
        producer.send(new ProducerRecord<>("dl-in", "a", "{\"tenant\":\"a\",\"id\":\"e" + i + "\",\"time\":"
            + (1_763_720_000_000L + i) + "}"));
      }
    }
    CommandLine cl = Main.commandLine();
    StringWriter err = new StringWriter();
    cl.setErr(new PrintWriter(err));
    int exit = cl.execute("dedup", "--bootstrap-servers", KAFKA.bootstrapServers(), "--input-topic", "dl-in",
        "--output-topic", "dl-out", "--duplicates-topic", "dl-dups", "--dead-letter-topic", "dl-dead",
        "--key-field", "id", "--timestamp-field", "ts", "--scope-field", "tenant", "--checkpoint-interval", "500ms",
        "--bounded");
    assertThat(TopicReader.readAll(KAFKA.bootstrapServers(), "dl-dead", true)).as("dead letters").hasSize(50);
    assertThat(exit).as("exit code; error output: %s", err).isEqualTo(1);
    assertThat(err.toString()).contains("dedup: every record read was a dead letter (50): nothing was counted. "
        + "The dead-letter topic 'dl-dead' gives each one's reason");
  }
}
