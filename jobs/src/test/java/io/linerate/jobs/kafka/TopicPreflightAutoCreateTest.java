package io.linerate.jobs.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@link TopicPreflight} against an embedded KRaft broker that creates topics on a write
 * ({@code auto.create.topics.enable=true}, {@code num.partitions=3}, {@code message.max.bytes=600000}): a written
 * topic that does not exist is a warning naming the defaults the broker will create it with, or a refusal if those
 * cannot take the job's largest record; a missing input topic is refused all the same (the source only describes
 * it, which creates nothing). Before, each was the warning "it does not exist (yet)".
 */
@Timeout(60)
class TopicPreflightAutoCreateTest {

  @RegisterExtension
  static final KafkaBrokerExtension KAFKA = new KafkaBrokerExtension(Map.of(
      "auto.create.topics.enable", "true", "num.partitions", "3", "message.max.bytes", "600000"));

  private static List<String> check(WrittenTopics written) {
    return new TopicPreflight(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, KAFKA.bootstrapServers()),
        Duration.ofSeconds(20)).check(written);
  }

  @Test
  void aMissingWrittenTopicIsAWarningNamingTheBrokersDefaults() throws Exception {
    KAFKA.broker().createTopics(1, "ac-in", "ac-dead");
    List<String> warnings = check(WrittenTopics.of("ac-in", Map.of("max.request.size", "500000"))
        .topic("output", "ac-out").topic("dead-letter", "ac-dead"));
    assertThat(warnings).singleElement().asString()
        .startsWith("output topic 'ac-out' does not exist on " + KAFKA.bootstrapServers() + " (yet): the broker will "
            + "create it on the job's first write to it (auto.create.topics.enable true on broker ")
        .contains("with the broker's defaults: num.partitions 3, max.message.bytes 600000 (message.max.bytes)")
        .endsWith("To choose them, create it first: kafka-topics.sh --bootstrap-server " + KAFKA.bootstrapServers()
            + " --create --topic ac-out --partitions N.");
    try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, KAFKA.bootstrapServers()))) {
      assertThat(admin.listTopics().names().get(30, TimeUnit.SECONDS)).as("the check creates no topic")
          .doesNotContain("ac-out");
    }
  }

  /** The broker's default max.message.bytes (600000) is below the default sinks' largest record (1048576). */
  @Test
  void aMissingWrittenTopicTheBrokerWouldCreateTooSmallIsRefused() throws Exception {
    KAFKA.broker().createTopic("acs-in", 1);
    assertThatThrownBy(() -> check(WrittenTopics.of("acs-in", Map.of()).topic("output", "acs-out")))
        .isInstanceOf(TopicPreflight.TopicsRefused.class)
        .hasMessageStartingWith("output topic 'acs-out' does not exist on " + KAFKA.bootstrapServers() + " (yet): "
            + "the broker will create it on the job's first write to it")
        .hasMessageContaining("max.message.bytes 600000 among them (message.max.bytes, set on the broker), below the "
            + "1048576 bytes of the largest record the job may write to it")
        .hasMessageContaining("--create --topic acs-out --partitions N --config max.message.bytes=1048576")
        .hasMessageContaining("lower the sinks' max.request.size to at most 600000");
  }

  @Test
  void aMissingInputTopicIsRefusedThoughTheBrokerCreatesTopics() throws Exception {
    KAFKA.broker().createTopic("aci-out", 1);
    assertThatThrownBy(() -> check(WrittenTopics.of("aci-in", Map.of("max.request.size", "500000"))
        .topic("output", "aci-out")))
        .isInstanceOf(TopicPreflight.TopicsRefused.class)
        .hasMessageStartingWith("input topic 'aci-in' does not exist on " + KAFKA.bootstrapServers());
  }

  /**
   * generate to a topic that does not exist, on a broker that creates topics on a write: a warning naming the
   * broker's defaults the topic gets (and an existing topic with a close name), then it writes as before.
   */
  @Test
  void aFeederWritingAMissingTopicTheBrokerCreatesIsWarnedAndWrites() throws Exception {
    KAFKA.broker().createTopic("acf-packets", 1);
    java.io.StringWriter err = new java.io.StringWriter();
    picocli.CommandLine cl = io.linerate.jobs.cli.Main.commandLine();
    cl.setErr(new java.io.PrintWriter(err));
    cl.setOut(new java.io.PrintWriter(new java.io.StringWriter()));
    int code = cl.execute("generate", "--bootstrap-servers", KAFKA.bootstrapServers(), "--input-topic", "acf-packet",
        "--count", "2000", "--batch-size", "100");
    assertThat(code).as(err.toString()).isZero();
    assertThat(err.toString()).startsWith("warning: input topic 'acf-packet' does not exist on "
            + KAFKA.bootstrapServers() + " (yet): the broker will create it on generate's first write to it "
            + "(auto.create.topics.enable true on broker ")
        .contains("with the broker's defaults: num.partitions 3, max.message.bytes 600000 (message.max.bytes). "
            + "Topics with a close name: 'acf-packets'. To choose them, create it first: kafka-topics.sh")
        .doesNotContain("nothing is written");
    assertThat(TopicReader.readAllValues(KAFKA.bootstrapServers(), "acf-packet", true)).hasSize(20);
  }
}
