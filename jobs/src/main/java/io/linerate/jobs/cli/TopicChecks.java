package io.linerate.jobs.cli;

import java.io.PrintWriter;
import java.time.Duration;
import java.util.Map;

import io.linerate.jobs.kafka.ClientProperties;
import io.linerate.jobs.kafka.TopicPreflight;
import io.linerate.jobs.kafka.WrittenTopics;
import io.linerate.jobs.local.JobLauncher;
import io.linerate.jobs.local.JobTopics;
import picocli.CommandLine.Model.CommandSpec;

/**
 * The check every job command makes before it submits its job ({@link TopicPreflight}): the input topic exists, the
 * topics the job writes exist (or the broker creates them on a write) and can take what it may write to them;
 * warnings and a refusal on the command's error output. The feeders check the topic they write the same way
 * ({@link #allowFeeder}).
 */
public final class TopicChecks {

  private TopicChecks() {
  }

  /**
   * The admin client's configuration: the broker of {@code topics} and {@code job}'s admin properties (security
   * settings among them: {@link JobLauncher#adminProperties}), so the check reaches the cluster the job's own clients
   * reach.
   */
  static Map<String, Object> adminConfig(JobLauncher job, JobTopics topics) {
    return ClientProperties.adminConfig(topics.bootstrapServers(), job.adminProperties());
  }

  /**
   * Checks the topic {@code job} reads and those it writes ({@link JobLauncher#writtenTopics}); prints each warning
   * ("warning: …") and a refusal ("COMMAND: the job is not submitted: …") to {@code spec}'s error output.
   *
   * @return whether the job may be submitted: false if the input topic does not exist, a written topic does not
   *     exist and the broker will not create it, or a topic cannot take what the job may write to it
   */
  public static boolean allow(CommandSpec spec, JobLauncher job, JobTopics topics) {
    return allow(spec, job, topics, false);
  }

  /**
   * As {@link #allow(CommandSpec, JobLauncher, JobTopics)}; with {@code jobRunsHere} (the job's Kafka clients run in
   * this JVM: the local cluster of the demo jar) a broker that does not answer at all is refused too
   * ({@link TopicPreflight#brokerMustAnswer}).
   */
  public static boolean allow(CommandSpec spec, JobLauncher job, JobTopics topics, boolean jobRunsHere) {
    return allow(spec, job, topics, jobRunsHere, TopicPreflight.DEFAULT_TIMEOUT);
  }

  /** As {@link #allow(CommandSpec, JobLauncher, JobTopics, boolean)}, waiting at most {@code timeout} for the broker. */
  static boolean allow(CommandSpec spec, JobLauncher job, JobTopics topics, boolean jobRunsHere, Duration timeout) {
    return allow(spec, new TopicPreflight(adminConfig(job, topics), timeout).brokerMustAnswer(jobRunsHere
        ? "the job would run in this JVM, whose Kafka clients would wait for it without end" : null, true),
        job.writtenTopics(topics), "the job is not submitted");
  }

  /**
   * The check a feeder ({@code generate}, {@code replay}) makes before it writes to {@code topic}: that it exists,
   * or that the broker will create it on the first write (a warning). Without it a missing topic on a broker that
   * does not create topics held the feeder's producer for {@code max.block.ms} (60 s) before it failed, and so did a
   * broker that answers nothing, which is refused too ({@link TopicPreflight#brokerMustAnswer}: the producer runs in
   * this JVM). An admin client that cannot be made (client properties the client refuses) is a warning: the
   * producer, made from the same properties, then fails at once with its own error. The admin client takes
   * {@code kafka}'s properties the feeder's producer takes ({@link KafkaOptions#feederProducerProperties}), so it
   * reaches the cluster the producer reaches.
   *
   * @return whether the feeder may write: false if the topic does not exist and the broker will not create it, or if
   *     the broker does not answer within {@link TopicPreflight#DEFAULT_TIMEOUT}
   */
  public static boolean allowFeeder(CommandSpec spec, KafkaOptions kafka, String topic) {
    return allowFeeder(spec, kafka, topic, TopicPreflight.DEFAULT_TIMEOUT);
  }

  /** As {@link #allowFeeder(CommandSpec, KafkaOptions, String)}, waiting at most {@code timeout} for the broker. */
  static boolean allowFeeder(CommandSpec spec, KafkaOptions kafka, String topic, Duration timeout) {
    TopicPreflight preflight = new TopicPreflight(ClientProperties.adminConfig(kafka.bootstrapServers(),
        kafka.feederProducerProperties()), timeout).brokerMustAnswer(spec.name() + "'s producer would wait for it "
        + "(max.block.ms, 60 s by default) and then fail", false); // without an admin client it fails at once
    return allow(spec, preflight, WrittenTopics.ofFeeder(spec.name()).topic("input", topic), "nothing is written");
  }

  /**
   * Runs {@code preflight} on {@code written}; prints each warning ("warning: …") and a refusal
   * ("COMMAND: {@code refusal}: …") to {@code spec}'s error output, and says whether the command may go on.
   */
  private static boolean allow(CommandSpec spec, TopicPreflight preflight, WrittenTopics written, String refusal) {
    PrintWriter err = spec.commandLine().getErr();
    try {
      for (String warning : preflight.check(written)) {
        err.println("warning: " + warning);
      }
      return true;
    } catch (TopicPreflight.TopicsRefused e) {
      for (String warning : e.warnings()) {
        err.println("warning: " + warning);
      }
      err.println(spec.name() + ": " + refusal + ": " + e.getMessage());
      return false;
    } finally {
      err.flush();
    }
  }
}
