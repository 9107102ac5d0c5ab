package io.linerate.jobs.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import io.linerate.flink.cluster.TestCluster;
import io.linerate.jobs.dedup.DedupJob;
import io.linerate.jobs.flowmeter.FlowMeterJob;
import io.linerate.jobs.heavyhitters.HeavyHittersJob;
import io.linerate.jobs.kafka.KafkaBrokerExtension;
import io.linerate.jobs.kafka.TopicPreflight;
import io.linerate.jobs.local.JobLauncher;
import io.linerate.jobs.local.JobTopics;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import picocli.CommandLine;

/**
 * The topic check every job command makes before it submits its job: its admin client reaches the cluster the job's
 * own clients reach (it takes their settings); against the embedded broker (auto.create.topics.enable=false), a
 * missing input topic is refused with exit code 1 before any job is submitted; a broker that cannot be reached is a
 * warning. The test cluster does not restart a failing job, so a job submitted by mistake fails the test at once.
 */
class TopicChecksTest {

  @RegisterExtension static final KafkaBrokerExtension KAFKA = new KafkaBrokerExtension();

  @RegisterExtension
  static final MiniClusterExtension FLINK = TestCluster.twoSlots(noRestarts());

  private static Configuration noRestarts() {
    Configuration conf = new Configuration();
    conf.set(RestartStrategyOptions.RESTART_STRATEGY, "none");
    return conf;
  }

  private record Run(int exitCode, String err) {}

  private static Run run(String... args) {
    CommandLine cl = Main.commandLine();
    StringWriter err = new StringWriter();
    cl.setErr(new PrintWriter(err));
    cl.setOut(new PrintWriter(new StringWriter()));
    return new Run(cl.execute(args), err.toString());
  }

  private static final JobTopics TOPICS = new JobTopics("kafka-1:9093,kafka-2:9093", "in", "out", "dead");

  @Test
  void theTopicCheckOfEveryJobTakesItsClientPropertiesButNotThoseOfOneClient() {
    List<JobLauncher> jobs = List.of(
        FlowMeterJob.builder().capacity(1_024).clientProperty("security.protocol", "SASL_SSL")
            .clientProperty("sasl.mechanism", "SCRAM-SHA-512").sourceProperty("fetch.min.bytes", "1024")
            .sinkProperty("linger.ms", "20").build(),
        HeavyHittersJob.builder().clientProperty("security.protocol", "SASL_SSL")
            .clientProperty("sasl.mechanism", "SCRAM-SHA-512").sourceProperty("fetch.min.bytes", "1024")
            .sinkProperty("linger.ms", "20").build(),
        DedupJob.builder().clientProperty("security.protocol", "SASL_SSL")
            .clientProperty("sasl.mechanism", "SCRAM-SHA-512").sourceProperty("fetch.min.bytes", "1024")
            .sinkProperty("linger.ms", "20").build());
    for (JobLauncher job : jobs) {
      Map<String, Object> config = TopicChecks.adminConfig(job, TOPICS);
      assertThat(config).as(job.getClass().getSimpleName())
          .containsEntry("bootstrap.servers", "kafka-1:9093,kafka-2:9093")
          .containsEntry("security.protocol", "SASL_SSL")
          .containsEntry("sasl.mechanism", "SCRAM-SHA-512")
          .doesNotContainKeys("fetch.min.bytes", "linger.ms");
    }
  }

  /**
   * A typo in --input-topic: every job command refuses, naming the topic, the broker and the topic with a close name.
   * Before, the job was submitted, and Flink's Kafka source failed at partition discovery ("Failed to get metadata for
   * topics [..]"): restarted without end on a cluster's restart strategy, failed at once on this test cluster.
   */
  @Test
  @Timeout(60)
  void aMissingInputTopicIsRefusedBeforeTheJobIsSubmitted() {
    KAFKA.broker().createTopics(1, "tc-packets", "tc-out", "tc-dead");
    for (String command : new String[] {"flow-meter", "heavy-hitters", "dedup"}) {
      String extra = command.equals("heavy-hitters") ? "--alerts-topic=" : command.equals("dedup")
          ? "--duplicates-topic=" : "--idleness=30s";
      Run r = run(command, "--bootstrap-servers", KAFKA.bootstrapServers(), "--input-topic", "tc-pakcets",
          "--output-topic", "tc-out", "--dead-letter-topic", "tc-dead", extra, "--bounded");
      assertThat(r.exitCode()).as("%s: %s", command, r.err()).isEqualTo(1);
      assertThat(r.err()).as(command).startsWith(command + ": the job is not submitted: input topic 'tc-pakcets' "
          + "does not exist on " + KAFKA.bootstrapServers())
          .contains("Topics with a close name: 'tc-packets'.")
          .contains("kafka-topics.sh --bootstrap-server " + KAFKA.bootstrapServers() + " --create --topic tc-pakcets");
    }
  }

  /**
   * How long the two tests below wait for a broker that does not answer: the commands wait
   * {@link TopicPreflight#DEFAULT_TIMEOUT} (10 s), which would make these tests 20 s of the jobs module's time.
   */
  private static final Duration NO_ANSWER_WAIT = Duration.ofSeconds(1);

  /** A broker that cannot be reached: the input's existence is not checked, a warning, and the job may run. */
  @Test
  @Timeout(60)
  void aBrokerThatCannotBeReachedIsAWarning() throws Exception {
    int port = freePort();
    Run r = checkFlowMeterAgainst(port, false);
    assertThat(r.exitCode()).as(r.err()).isZero();
    assertThat(r.err()).startsWith("warning: whether input topic 'packets' exists is not checked before the "
        + "job runs: no answer from 127.0.0.1:" + port)
        .contains("warning: the configs of topic 'flows' (max.message.bytes, message.timestamp.*) are not checked")
        .doesNotContain("not submitted");
  }

  /**
   * A broker that cannot be reached, for a job that would run in this JVM (the demo jar's local cluster): refused,
   * since its Kafka clients would wait for the broker without end (before: a warning, then a hang).
   */
  @Test
  @Timeout(60)
  void aBrokerThatCannotBeReachedIsRefusedForAJobThatRunsHere() throws Exception {
    int port = freePort();
    Run r = checkFlowMeterAgainst(port, true);
    assertThat(r.exitCode()).as(r.err()).isEqualTo(1);
    assertThat(r.err()).contains("flow-meter: the job is not submitted: the broker does not answer here (no "
        + "answer from 127.0.0.1:" + port + " within PT1S), and the job would run in this JVM")
        // before: first "warning: ... not checked before the job runs", contradicting the refusal after it
        .doesNotContain("warning:");
  }

  /**
   * A broker that cannot be reached, for a feeder: refused, nothing written (before: a warning, then the producer
   * waited {@code max.block.ms}, 60 s, and failed).
   */
  @Test
  @Timeout(60)
  void aBrokerThatCannotBeReachedIsRefusedForAFeeder() throws Exception {
    int port = freePort();
    for (List<String> args : List.of(List.of("generate"), List.of("replay", "capture.pcap"))) {
      String feeder = args.get(0);
      CommandLine cl = Main.commandLine().parseArgs(Stream.concat(args.stream(), Stream.of("--bootstrap-servers",
          "127.0.0.1:" + port)).toArray(String[]::new)).subcommand().commandSpec().commandLine();
      StringWriter err = new StringWriter();
      cl.setErr(new PrintWriter(err));
      KafkaOptions kafka = (KafkaOptions) cl.getCommandSpec().mixins().get("kafka").userObject();
      boolean allowed = TopicChecks.allowFeeder(cl.getCommandSpec(), kafka, "packets", NO_ANSWER_WAIT);
      assertThat(allowed).as("%s: %s", feeder, err).isFalse();
      assertThat(err.toString()).as(feeder).contains(feeder + ": nothing is written: the broker does not answer here "
          + "(no answer from 127.0.0.1:" + port + " within PT1S), and " + feeder + "'s producer would wait for it "
          + "(max.block.ms, 60 s by default) and then fail: check --bootstrap-servers and that the broker runs")
          // before: first "warning: whether input topic 'packets' exists is not checked before generate writes to it"
          .doesNotContain("warning:");
    }
  }

  /**
   * An admin client that cannot be made (SASL without a JAAS entry), for a feeder: a warning that gives the client's
   * reason, and the feeder goes on (its producer, made from the same properties, then fails at once with its own
   * error, as {@code JobCommandsTest.feederProducersGetTheClientProperties} shows; it would not wait for a broker).
   */
  @Test
  @Timeout(60)
  void anAdminClientThatCannotBeMadeIsAWarningForAFeederGivingItsCause() {
    CommandLine cl = Main.commandLine().parseArgs("generate", "--bootstrap-servers", "127.0.0.1:" + 9,
        "--kafka-property", "security.protocol=SASL_PLAINTEXT", "--kafka-property", "sasl.mechanism=PLAIN")
        .subcommand().commandSpec().commandLine();
    StringWriter err = new StringWriter();
    cl.setErr(new PrintWriter(err));
    KafkaOptions kafka = (KafkaOptions) cl.getCommandSpec().mixins().get("kafka").userObject();
    assertThat(TopicChecks.allowFeeder(cl.getCommandSpec(), kafka, "packets", NO_ANSWER_WAIT)).as("%s", err).isTrue();
    assertThat(err.toString()).startsWith("warning: the topics [packets] (whether they exist, max.message.bytes, "
        + "message.timestamp.*) are not checked before the job runs: cannot create an admin client: Failed to create "
        + "new KafkaAdminClient").containsIgnoringCase("JAAS").doesNotContain("nothing is written");
  }

  /**
   * An admin client that cannot be made, where every unanswered broker is refused (a job on the demo jar's local
   * cluster: its clients' failures would restart it without end): refused, naming the client's reason and the
   * client properties, not a wait.
   */
  @Test
  void anAdminClientThatCannotBeMadeIsRefusedWhereTheCheckSaysSo() {
    TopicPreflight preflight = new TopicPreflight(Map.of("bootstrap.servers", "127.0.0.1:9", "security.protocol",
        "SASL_PLAINTEXT", "sasl.mechanism", "PLAIN"), NO_ANSWER_WAIT).brokerMustAnswer("the job would wait", true);
    assertThatThrownBy(() -> preflight.check(io.linerate.jobs.kafka.WrittenTopics.ofFeeder("flow-meter")
        .topic("input", "packets"))).isInstanceOf(TopicPreflight.TopicsRefused.class)
        .hasMessageStartingWith("the broker cannot be reached from here (cannot create an admin client: Failed to "
            + "create new KafkaAdminClient").hasMessageContaining("JAAS")
        .hasMessageEndingWith("check --bootstrap-servers and the client properties (--kafka-config, --kafka-property)")
        .hasMessageNotContaining("would wait");
  }

  /**
   * The same through a job's own check ({@link TopicChecks#allow}), whose admin client takes the job's client
   * properties: refused for a job that would run here (its clients' failures would restart it without end), naming
   * the client's reason and the properties; a warning for a job submitted elsewhere (the cluster may have what this
   * host lacks, e.g. a JAAS entry).
   */
  @Test
  @Timeout(60)
  void aJobWhoseAdminClientCannotBeMadeIsRefusedOnlyWhereItWouldRunHere() {
    FlowMeterJob job = FlowMeterJob.builder().capacity(1_024).clientProperty("security.protocol", "SASL_PLAINTEXT")
        .clientProperty("sasl.mechanism", "PLAIN").build();
    JobTopics topics = new JobTopics("127.0.0.1:9", "packets", "flows", "dead-letters");
    for (boolean runsHere : new boolean[] {true, false}) {
      CommandLine cl = Main.commandLine().getSubcommands().get("flow-meter");
      StringWriter err = new StringWriter();
      cl.setErr(new PrintWriter(err));
      boolean allowed = TopicChecks.allow(cl.getCommandSpec(), job, topics, runsHere, NO_ANSWER_WAIT);
      if (runsHere) {
        assertThat(allowed).as("%s", err).isFalse();
        assertThat(err.toString()).startsWith("flow-meter: the job is not submitted: the broker cannot be reached "
            + "from here (cannot create an admin client: Failed to create new KafkaAdminClient")
            .containsIgnoringCase("JAAS").contains("check --bootstrap-servers and the client properties "
                + "(--kafka-config, --kafka-property)").doesNotContain("warning:");
      } else {
        assertThat(allowed).as("%s", err).isTrue();
        assertThat(err.toString()).startsWith("warning: ").contains("cannot create an admin client")
            .doesNotContain("not submitted");
      }
    }
  }

  /**
   * The flow-meter command's topic check against a broker on {@code port} of this host, waiting
   * {@link #NO_ANSWER_WAIT}: exit code 0 if the job may be submitted, 1 if not, and the check's error output.
   */
  private static Run checkFlowMeterAgainst(int port, boolean jobRunsHere) {
    CommandLine cl = Main.commandLine().getSubcommands().get("flow-meter");
    StringWriter err = new StringWriter();
    cl.setErr(new PrintWriter(err));
    JobTopics topics = new JobTopics("127.0.0.1:" + port, "packets", "flows", "dead-letters");
    boolean allowed = TopicChecks.allow(cl.getCommandSpec(), FlowMeterJob.builder().capacity(1_024).build(), topics,
        jobRunsHere, NO_ANSWER_WAIT);
    return new Run(allowed ? 0 : 1, err.toString());
  }

  /** A port nothing listens on: opened, then closed again. */
  private static int freePort() throws java.io.IOException {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    }
  }
}
