package io.linerate.jobs.cli;

import io.linerate.jobs.local.JobTopics;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * Where a job reads and writes: the Kafka options every Kafka-to-Kafka sub-command shares
 * ({@code @Mixin KafkaOptions kafka;}). Values are checked as they are parsed; an error names the option.
 */
public class KafkaOptions {

  @Spec(Spec.Target.MIXEE)
  private CommandSpec spec;

  private String bootstrapServers = "localhost:9092";
  private String inputTopic = "packets";
  private String outputTopic = "reports";
  private String deadLetterTopic = "dead-letters";

  @Option(names = "--bootstrap-servers", paramLabel = "HOST:PORT[,HOST:PORT...]", defaultValue = "localhost:9092",
      description = "Kafka brokers to connect to (default: ${DEFAULT-VALUE})")
  void bootstrapServers(String value) {
    bootstrapServers = requireText("--bootstrap-servers", value);
    for (String server : bootstrapServers.split(",", -1)) {
      String s = server.trim();
      int colon = s.lastIndexOf(':');
      String port = colon < 0 ? "" : s.substring(colon + 1);
      if (colon <= 0 || port.isEmpty() || port.length() > 5 || !port.chars().allMatch(c -> c >= '0' && c <= '9')) {
        throw new ParameterException(spec.commandLine(),
            "--bootstrap-servers must be a comma-separated list of host:port, got '" + value + "'");
      }
      int p = Integer.parseInt(port);
      if (p < 1 || p > 65_535) {
        throw new ParameterException(spec.commandLine(), "--bootstrap-servers: port " + p + " of '" + s
            + "' must be in [1, 65535], got '" + value + "'");
      }
    }
  }

  @Option(names = "--input-topic", paramLabel = "TOPIC", defaultValue = "packets",
      description = "Kafka topic the job reads (default: ${DEFAULT-VALUE})")
  void inputTopic(String value) {
    inputTopic = requireTopic("--input-topic", value);
  }

  @Option(names = "--output-topic", paramLabel = "TOPIC", defaultValue = "reports",
      description = "Kafka topic the job writes its results to, in transactions (default: ${DEFAULT-VALUE})")
  void outputTopic(String value) {
    outputTopic = requireTopic("--output-topic", value);
  }

  @Option(names = "--dead-letter-topic", paramLabel = "TOPIC", defaultValue = "dead-letters",
      description = "Kafka topic for input records the job cannot read, with the reason (default: ${DEFAULT-VALUE})")
  void deadLetterTopic(String value) {
    deadLetterTopic = requireTopic("--dead-letter-topic", value);
  }

  public String bootstrapServers() {
    return bootstrapServers;
  }

  public String inputTopic() {
    return inputTopic;
  }

  public String outputTopic() {
    return outputTopic;
  }

  public String deadLetterTopic() {
    return deadLetterTopic;
  }

  private String requireText(String option, String value) {
    if (value == null || value.isBlank()) {
      throw new ParameterException(spec.commandLine(), option + " must not be blank");
    }
    return value.trim();
  }

  /** Kafka's rule for topic names ({@link TopicNames}). */
  private String requireTopic(String option, String value) {
    String topic = requireText(option, value);
    if (!TopicNames.valid(topic)) {
      throw new ParameterException(spec.commandLine(), option + " must be " + TopicNames.RULE + ", got '" + value
          + "'");
    }
    return topic;
  }

  /** The broker and the three topics these options name; a topic written that is the input fails naming both. */
  public JobTopics topics() {
    requireNotInput("--output-topic", outputTopic());
    requireNotInput("--dead-letter-topic", deadLetterTopic());
    return new JobTopics(bootstrapServers(), inputTopic(), outputTopic(), deadLetterTopic());
  }

  /** Fails if {@code topic}, which the job writes to through {@code option}, is the input topic. */
  public void requireNotInput(String option, String topic) {
    if (topic != null && topic.equals(inputTopic())) {
      throw new ParameterException(spec.commandLine(), option + " must differ from --input-topic ('" + topic
          + "'): the job would read what it writes, without end");
    }
  }
}
