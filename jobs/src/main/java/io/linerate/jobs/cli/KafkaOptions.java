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
    for (String server : bootstrapServers.split(",")) {
      String s = server.trim();
      int colon = s.lastIndexOf(':');
      if (colon <= 0 || colon == s.length() - 1 || !s.substring(colon + 1).chars().allMatch(Character::isDigit)) {
        throw new ParameterException(spec.commandLine(),
            "--bootstrap-servers must be a comma-separated list of host:port, got '" + value + "'");
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

  /** Kafka's rule for topic names: 1 to 249 characters of [a-zA-Z0-9._-], not "." or "..". */
  private String requireTopic(String option, String value) {
    String topic = requireText(option, value);
    if (topic.length() > 249 || topic.equals(".") || topic.equals("..")
        || !topic.chars().allMatch(c -> Character.isLetterOrDigit(c) && c < 128 || c == '.' || c == '_' || c == '-')) {
      throw new ParameterException(spec.commandLine(),
          option + " must be a Kafka topic name (1 to 249 of a-z A-Z 0-9 . _ -), got '" + value + "'");
    }
    return topic;
  }

  /** The broker and the three topics these options name. */
  public JobTopics topics() {
    return new JobTopics(bootstrapServers(), inputTopic(), outputTopic(), deadLetterTopic());
  }
}
