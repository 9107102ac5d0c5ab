package io.linerate.jobs.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.ServerSocket;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import io.linerate.jobs.dedup.DedupJob;
import io.linerate.jobs.flowmeter.FlowMeterJob;
import io.linerate.jobs.heavyhitters.HeavyHittersJob;
import io.linerate.jobs.local.JobTopics;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.AuthorizationException;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourceType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@link TopicPreflight} against the embedded KRaft broker, with an authorizer that lets everyone do everything on a
 * resource without ACLs (so one topic can be denied DescribeConfigs alone). Before it, a topic whose
 * {@code max.message.bytes} was below what the job may write passed every check of the job and failed its sink
 * (RecordTooLargeException) on the first such record, on every restart; a raw output topic whose timestamp bounds
 * could refuse the input's timestamps was not mentioned; a missing input topic (the source then failed at partition
 * discovery and the job restarted without end) and missing written topics were warnings, "it does not exist (yet)".
 * The broker does not create topics on a write (the embedded broker's default); {@link TopicPreflightAutoCreateTest}
 * has one that does.
 */
@Timeout(60)
class TopicPreflightTest {

  @RegisterExtension
  static final KafkaBrokerExtension KAFKA = new KafkaBrokerExtension(Map.of(
      "authorizer.class.name", "org.apache.kafka.metadata.authorizer.StandardAuthorizer",
      "allow.everyone.if.no.acl.found", "true"));

  private static final int LARGEST = 1_048_576; // Kafka's default max.request.size; buffer.memory is 32 MiB

  private static List<String> check(WrittenTopics written) {
    return new TopicPreflight(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, KAFKA.bootstrapServers()),
        Duration.ofSeconds(20)).check(written);
  }

  private static void topic(String name, Map<String, String> configs) throws Exception {
    ConfiguredTopics.create(KAFKA.bootstrapServers(), name, configs);
  }

  @Test
  void aTopicBelowTheLargestRecordIsRefusedNamingItBothValuesAndTheFixes() throws Exception {
    assertThat(JsonTopics.maxRecordBytes()).isEqualTo(LARGEST);
    KAFKA.broker().createTopic("pf-in", 1);
    topic("pf-out", Map.of("max.message.bytes", Integer.toString(LARGEST - 1)));
    topic("pf-dead", Map.of("max.message.bytes", Integer.toString(LARGEST))); // exactly enough
    WrittenTopics written = WrittenTopics.of("pf-in", Map.of()).topic("output", "pf-out")
        .topic("dead-letter", "pf-dead");
    assertThatThrownBy(() -> check(written))
        .isInstanceOf(TopicPreflight.TopicsRefused.class)
        .hasMessageStartingWith("output topic 'pf-out' has max.message.bytes 1048575 (set on the topic), below the "
            + "1048576 bytes of the largest record the job may write to it (max.request.size 1048576, buffer.memory "
            + "33554432")
        .hasMessageContaining("RecordTooLargeException")
        .hasMessageContaining("--entity-name pf-out --add-config max.message.bytes=1048576")
        .hasMessageContaining("lower the sinks' max.request.size to at most 1048575")
        .hasMessageNotContaining("pf-dead");
    assertThat(check(WrittenTopics.of("pf-in", Map.of()).topic("dead-letter", "pf-dead"))).isEmpty();
  }

  /** A max.request.size raised above the broker's default needs the topics raised too; buffer.memory caps it. */
  @Test
  void aMaxRequestSizeAboveTheTopicsLimitIsRefused() throws Exception {
    KAFKA.broker().createTopics(1, "pf-in2", "pf-default");
    Map<String, String> twoMib = Map.of("max.request.size", "2097152");
    assertThat(check(WrittenTopics.of("pf-in2", Map.of()).topic("output", "pf-default"))).isEmpty();
    assertThatThrownBy(() -> check(WrittenTopics.of("pf-in2", twoMib).topic("output", "pf-default")
        .topic("alerts", "pf-default")))
        .isInstanceOf(TopicPreflight.TopicsRefused.class)
        .hasMessageStartingWith("output and alerts topic 'pf-default' has max.message.bytes 1048588 (Kafka's "
            + "default), below the 2097152 bytes");
    assertThat(check(WrittenTopics.of("pf-in2", Map.of("max.request.size", "2097152", "buffer.memory", "1048576"))
        .topic("output", "pf-default"))).isEmpty();
  }

  @Test
  void rawOutputTopicsWhoseTimestampBoundsCanRefuseInputTimestampsAreWarnedOf() throws Exception {
    KAFKA.broker().createTopics(1, "ts-in", "ts-default");
    topic("ts-before", Map.of("message.timestamp.before.max.ms", "60000"));
    topic("ts-log-append", Map.of("message.timestamp.type", "LogAppendTime",
        "message.timestamp.before.max.ms", "60000"));
    topic("ts-in-unbounded", Map.of("message.timestamp.after.max.ms", Long.toString(Long.MAX_VALUE)));
    topic("ts-in-log-append", Map.of("message.timestamp.type", "LogAppendTime",
        "message.timestamp.after.max.ms", Long.toString(Long.MAX_VALUE)));

    List<String> before = check(WrittenTopics.of("ts-in", Map.of()).keepingInputTimestamps("raw output", "ts-before"));
    assertThat(before).singleElement().asString()
        .startsWith("raw output topic 'ts-before' has message.timestamp.type CreateTime and "
            + "message.timestamp.before.max.ms 60000")
        .contains("more than 60000 ms behind the broker's clock").contains("InvalidTimestampException");
    // the default after bound (1 h) is the input's too: its timestamps were taken with it, and the clock moves on
    assertThat(check(WrittenTopics.of("ts-in", Map.of()).keepingInputTimestamps("raw output", "ts-default")))
        .isEmpty();
    assertThat(check(WrittenTopics.of("ts-in", Map.of()).keepingInputTimestamps("raw output", "ts-log-append")))
        .isEmpty();
    assertThat(check(WrittenTopics.of("ts-in-unbounded", Map.of())
        .keepingInputTimestamps("raw duplicates", "ts-default")))
        .singleElement().asString()
        .startsWith("raw duplicates topic 'ts-default' has message.timestamp.type CreateTime and "
            + "message.timestamp.after.max.ms 3600000")
        .contains("the input topic 'ts-in-unbounded' takes timestamps up to any time ahead");
    assertThat(check(WrittenTopics.of("ts-in-log-append", Map.of())
        .keepingInputTimestamps("raw output", "ts-default"))).isEmpty();
    // topics written with the time of writing are not warned of
    assertThat(check(WrittenTopics.of("ts-in", Map.of()).topic("output", "ts-before"))).isEmpty();
  }

  /** What cannot be checked is a warning, and the job goes on: a denied DescribeConfigs. */
  /**
   * An admin client that cannot be created (here SASL without a JAAS entry) is a warning that gives the reason: the
   * client's own message says only "Failed to create new KafkaAdminClient", the cause says why.
   */
  @Test
  void anAdminClientThatCannotBeCreatedIsAWarningGivingItsCause() {
    List<String> warnings = new TopicPreflight(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG,
        KAFKA.bootstrapServers(), "security.protocol", "SASL_PLAINTEXT", "sasl.mechanism", "PLAIN"),
        Duration.ofSeconds(5)).check(WrittenTopics.of("nc-anything", Map.of()).topic("output", "nc-out"));
    assertThat(warnings).singleElement().asString().contains("cannot create an admin client")
        .contains("Failed to create new KafkaAdminClient").containsIgnoringCase("JAAS");
  }

  @Test
  void aTopicThatCannotBeDescribedIsAWarningNotARefusal() throws Exception {
    KAFKA.broker().createTopic("nc-in", 1);
    topic("nc-secret", Map.of("max.message.bytes", "1000"));
    try (Admin admin = admin()) {
      admin.createAcls(List.of(new AclBinding(new ResourcePattern(ResourceType.TOPIC, "nc-secret", PatternType.LITERAL),
          new AccessControlEntry("User:ANONYMOUS", "*", AclOperation.DESCRIBE_CONFIGS, AclPermissionType.DENY))))
          .all().get(30, TimeUnit.SECONDS);
      awaitDenied(admin, new ConfigResource(ConfigResource.Type.TOPIC, "nc-secret"));
    }
    List<String> warnings = check(WrittenTopics.of("nc-in", Map.of()).topic("output", "nc-secret"));
    assertThat(warnings).singleElement().asString().startsWith("the configs of topic 'nc-secret' (max.message.bytes, "
        + "message.timestamp.*) are not checked before the job runs: not authorized to describe its configs");
  }

  /**
   * An input topic that does not exist (a typo) is refused, naming it, the broker, the command that creates it and the
   * existing topics with a close name. Before, the job was submitted, and Flink's Kafka source failed at partition
   * discovery ("Failed to get metadata for topics [..]") and restarted without end.
   */
  @Test
  void aMissingInputTopicIsRefusedNamingTheTopicsWithACloseName() throws Exception {
    KAFKA.broker().createTopics(1, "mi-packets", "MI-PAKCETS", "mi-pakcets-archive-2", "mi-out", "mi-dead");
    WrittenTopics written = WrittenTopics.of("mi-pakcets", Map.of()).topic("output", "mi-out")
        .topic("dead-letter", "mi-dead");
    assertThatThrownBy(() -> check(written))
        .isInstanceOf(TopicPreflight.TopicsRefused.class)
        .hasMessageStartingWith("input topic 'mi-pakcets' does not exist on " + KAFKA.bootstrapServers()
            + ": Flink's Kafka source would fail to find its partitions (\"Failed to get metadata for topics "
            + "[mi-pakcets]\") and the job would restart without end")
        .hasMessageContaining("Topics with a close name: 'MI-PAKCETS', 'mi-packets'.")
        .hasMessageContaining("kafka-topics.sh --bootstrap-server " + KAFKA.bootstrapServers()
            + " --create --topic mi-pakcets --partitions N")
        .hasMessageNotContaining("archive").hasMessageNotContaining("mi-out");
    // no close name: none named
    assertThatThrownBy(() -> check(WrittenTopics.of("mi-zzzzzzzz", Map.of()).topic("output", "mi-out")))
        .isInstanceOf(TopicPreflight.TopicsRefused.class)
        .hasMessageStartingWith("input topic 'mi-zzzzzzzz' does not exist")
        .hasMessageNotContaining("close name");
    assertThat(check(WrittenTopics.of("mi-packets", Map.of()).topic("output", "mi-out"))).isEmpty();
  }

  /**
   * Written topics that do not exist, on a broker that does not create topics on a write (the embedded broker's
   * auto.create.topics.enable=false): refused, each named. Before, a warning, and the sink failed the job on its first
   * write to the topic.
   */
  @Test
  void missingWrittenTopicsAreRefusedWhenTheBrokerDoesNotCreateTopics() throws Exception {
    KAFKA.broker().createTopics(1, "mw-in", "mw-alerts");
    WrittenTopics written = WrittenTopics.of("mw-in", Map.of()).topic("output", "mw-out").topic("alerts", "mw-alerts")
        .topic("dead-letter", "mw-dead");
    assertThatThrownBy(() -> check(written))
        .isInstanceOf(TopicPreflight.TopicsRefused.class)
        .hasMessageStartingWith("output topic 'mw-out' does not exist on " + KAFKA.bootstrapServers() + ", and the "
            + "broker does not create topics on a write (auto.create.topics.enable false, set on broker ")
        .hasMessageContaining("\ndead-letter topic 'mw-dead' does not exist on " + KAFKA.bootstrapServers())
        .hasMessageContaining("--create --topic mw-out --partitions N")
        .hasMessageContaining("--create --topic mw-dead --partitions N")
        .hasMessageNotContaining("mw-alerts");
  }

  /**
   * A broker that does not answer: whether the input exists and the written topics' configs are not checked, each
   * a warning, and the job goes on. Before, the input was not mentioned.
   */
  @Test
  void aBrokerThatDoesNotAnswerIsAWarningAfterTheTimeout() throws Exception {
    int port;
    try (ServerSocket s = new ServerSocket(0)) {
      port = s.getLocalPort(); // closed again: nothing listens there
    }
    long start = System.nanoTime();
    List<String> warnings = new TopicPreflight(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG,
        "127.0.0.1:" + port), Duration.ofSeconds(1))
        .check(WrittenTopics.of("in", Map.of()).topic("output", "out"));
    assertThat(warnings).hasSize(2);
    assertThat(warnings.get(0)).isEqualTo("whether input topic 'in' exists is not checked before the job runs: no "
        + "answer from 127.0.0.1:" + port + " within PT1S");
    assertThat(warnings.get(1))
        .startsWith("the configs of topic 'out' (max.message.bytes, message.timestamp.*) are not checked");
    assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(10));
  }

  @Test
  void aJobThatSaysNothingIsNotChecked() {
    assertThat(new TopicPreflight(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, "127.0.0.1:1"),
        Duration.ofSeconds(1)).check(WrittenTopics.none())).isEmpty();
  }

  /** Each job names every topic it writes, with its role, and the largest record its sinks' settings allow. */
  @Test
  void eachJobSaysWhatItWrites() {
    JobTopics topics = new JobTopics("127.0.0.1:1", "in", "out", "dead");
    WrittenTopics hh = HeavyHittersJob.builder().alertsTopic("alerts").sinkProperty("max.request.size", "2097152")
        .build().writtenTopics(topics);
    assertThat(hh.topics()).containsExactly("out", "alerts", "dead");
    assertThat(hh.largestRecordBytes()).isEqualTo(2_097_152);
    assertThat(hh.keepingInputTimestamps()).isEmpty();
    assertThat(HeavyHittersJob.builder().alertsTopic("").build().writtenTopics(topics).describe("out"))
        .isEqualTo("output and alerts topic 'out'");
    WrittenTopics fm = FlowMeterJob.builder().capacity(1_000).build().writtenTopics(topics);
    assertThat(fm.topics()).containsExactly("out", "dead");
    assertThat(fm.largestRecordBytes()).isEqualTo(LARGEST);
    WrittenTopics envelope = DedupJob.builder().duplicatesTopic("dups").build().writtenTopics(topics);
    assertThat(envelope.topics()).containsExactly("out", "dups", "dead");
    assertThat(envelope.keepingInputTimestamps()).isEmpty();
    WrittenTopics raw = DedupJob.builder().duplicatesTopic("dups").outputFormat(DedupJob.OutputFormat.RAW)
        .sinkProperty("buffer.memory", "524288").build().writtenTopics(topics);
    assertThat(raw.keepingInputTimestamps()).containsExactly("out", "dups");
    assertThat(raw.describe("dups")).isEqualTo("raw duplicates topic 'dups'");
    assertThat(raw.largestRecordBytes()).isEqualTo(524_288);
    assertThat(raw.input()).isEqualTo("in");
  }

  private static Admin admin() {
    return Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, KAFKA.bootstrapServers()));
  }

  /** Waits until the ACLs just created deny DescribeConfigs of {@code r}. */
  private static void awaitDenied(Admin admin, ConfigResource r) throws Exception {
    long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    while (System.nanoTime() < deadline) {
      try {
        admin.describeConfigs(List.of(r)).all().get(30, TimeUnit.SECONDS);
      } catch (ExecutionException e) {
        if (e.getCause() instanceof AuthorizationException) {
          return;
        }
        throw e;
      }
      Thread.sleep(20);
    }
    throw new IllegalStateException("DescribeConfigs on " + r + " is still allowed");
  }
}
