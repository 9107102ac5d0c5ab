package io.linerate.jobs.cli;

import java.nio.file.Path;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.linerate.jobs.cli.ClientPropertyArgs.Reach;
import io.linerate.jobs.format.KafkaDecoding;
import io.linerate.jobs.kafka.ClientProperties;
import io.linerate.jobs.kafka.KafkaInput;
import io.linerate.jobs.kafka.KafkaJobBuilder;
import io.linerate.jobs.kafka.ProducerLimits;
import io.linerate.jobs.local.JobTopics;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * Where a job reads and writes: the Kafka options every Kafka-to-Kafka sub-command shares
 * ({@code @Mixin KafkaOptions kafka;}), and the feeders too (without the options a feeder has no use for:
 * {@link #forFeeder()}). Values are checked as they are parsed; an error names the option.
 *
 * <p>Client properties ({@link #applyTo}): {@code --kafka-config FILE} and {@code --kafka-property KEY=VALUE} reach
 * every client the command creates (consumer, producers, admin clients: the place for security settings),
 * {@code --consumer-property} the job's consumer only, {@code --producer-property} the producers only. For one key,
 * a client-specific option wins over {@code --kafka-property}, which wins over the file; the last of repeated
 * {@code KEY=VALUE}s of one option wins.
 */
public class KafkaOptions {

  @Spec(Spec.Target.MIXEE)
  private CommandSpec spec;

  private String bootstrapServers = "localhost:9092";
  private String inputTopic = "packets";
  private String outputTopic = "reports";
  private String deadLetterTopic = "dead-letters";
  private Path kafkaConfig;
  private final Map<String, String> fileProperties = new LinkedHashMap<>();
  private final Map<String, String> kafkaProperties = new LinkedHashMap<>();
  private final Map<String, String> consumerProperties = new LinkedHashMap<>();
  private final Map<String, String> producerProperties = new LinkedHashMap<>();
  private int maxDeadLetterBytes = KafkaDecoding.DEFAULT_MAX_DEAD_LETTER_BYTES;
  private boolean feeder;

  /**
   * The most {@code --max-dead-letter-bytes} any producer setting can hold: a dead letter keeping more could not be
   * a Kafka record ({@code max.request.size} is an int).
   */
  static int maxDeadLetterBytesLimit() {
    // a method, not a constant: KafkaDecoding is a Flink deserializer, and the feeders (which share these options
    // without --max-dead-letter-bytes) run from the job jar, which carries no Flink runtime
    return KafkaDecoding.largestMaxDeadLetterBytes(Integer.MAX_VALUE - ProducerLimits.RECORD_OVERHEAD);
  }

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

  @Option(names = "--kafka-config", paramLabel = "FILE", defaultValue = "",
      description = "A Java properties file of Kafka client properties for every client of the command (its "
          + "consumer, producers and admin clients, as it has them), e.g. security.protocol, sasl.*, ssl.*, as "
          + "Kafka's tools' --command-config; --kafka-property and the client-specific options win over it "
          + "(default: none)")
  void kafkaConfig(String value) {
    fileProperties.clear();
    kafkaConfig = null;
    if (value == null || value.isEmpty()) {
      return;
    }
    Path file;
    try {
      file = Path.of(value);
    } catch (java.nio.file.InvalidPathException e) {
      throw new ParameterException(spec.commandLine(), "--kafka-config: cannot read " + value + ": " + e.getReason());
    }
    kafkaConfig = file;
    String option = "--kafka-config " + file;
    try {
      ClientPropertyArgs.read("--kafka-config", file).forEach((key, given) -> {
        ClientPropertyArgs.check(option, allClients(), key, given);
        fileProperties.put(key, given);
      });
    } catch (IllegalArgumentException e) {
      throw new ParameterException(spec.commandLine(), e.getMessage(), e);
    }
  }

  @Option(names = "--kafka-property", paramLabel = "KEY=VALUE",
      description = "A Kafka client property for every client of the command (its consumer, producers and admin "
          + "clients, as it has them): the place for security settings (security.protocol=SASL_SSL, "
          + "sasl.jaas.config=...); repeatable; wins over --kafka-config (default: none)")
  void kafkaProperty(List<String> values) {
    add("--kafka-property", allClients(), values, kafkaProperties);
  }

  @Option(names = "--consumer-property", paramLabel = "KEY=VALUE",
      description = "A Kafka consumer property (or one of Flink's Kafka source, e.g. "
          + "partition.discovery.interval.ms) of the job's source; repeatable; wins over --kafka-property "
          + "(default: none)")
  void consumerProperty(List<String> values) {
    add("--consumer-property", Reach.JOB_CONSUMER, values, consumerProperties);
  }

  @Option(names = "--producer-property", paramLabel = "KEY=VALUE",
      description = "A Kafka producer property of the command's producers (the job's sinks, the feeder's), e.g. "
          + "compression.type=zstd, max.request.size=...; repeatable; wins over --kafka-property (default: none)")
  void producerProperty(List<String> values) {
    add("--producer-property", feeder ? Reach.FEEDER_PRODUCER : Reach.JOB_PRODUCERS, values, producerProperties);
  }

  @Option(names = "--max-dead-letter-bytes", paramLabel = "BYTES", defaultValue = "4096",
      description = "Bytes of an unreadable record's value, of its key and of its headers its dead letter keeps "
          + "(suffix k, m); the largest dead letter must fit a record of the dead-letter sink (max.request.size and "
          + "buffer.memory: Kafka's default 1 MiB allows about 119000) (default: ${DEFAULT-VALUE})")
  void maxDeadLetterBytes(String value) {
    long bytes = Sizes.parseBytes(spec, "--max-dead-letter-bytes", value);
    int limit = maxDeadLetterBytesLimit();
    if (bytes > limit) {
      throw new ParameterException(spec.commandLine(), "--max-dead-letter-bytes must be at most "
          + limit + " (a larger dead letter could not be a Kafka record at all), got " + value);
    }
    maxDeadLetterBytes = (int) bytes;
  }

  /** Takes the newest of {@code values} (picocli passes all given so far), checked for {@code reach}. */
  private void add(String option, Reach reach, List<String> values, Map<String, String> into) {
    if (values == null || values.isEmpty()) {
      return;
    }
    try {
      ClientPropertyArgs.Property p = ClientPropertyArgs.parse(option, values.get(values.size() - 1));
      if (into != kafkaProperties) { // one client's option: a key of another client only is a mistake
        ClientPropertyArgs.requireKnownTo(option, reach, p.key());
      }
      ClientPropertyArgs.check(option, reach, p.key(), p.value());
      into.put(p.key(), p.value());
    } catch (IllegalArgumentException e) {
      throw new ParameterException(spec.commandLine(), e.getMessage(), e);
    }
  }

  private Reach allClients() {
    return feeder ? Reach.FEEDER_PRODUCER : Reach.JOB_CLIENTS;
  }

  /**
   * Makes these the options of a feeder, whose only client is a producer: the properties are checked as the
   * feeder's producer takes them. The feeders call it before parsing (and remove the job-only options).
   */
  public void forFeeder() {
    feeder = true;
  }

  /** The properties of every client: {@code --kafka-config}'s, then {@code --kafka-property}'s (which win). */
  public Map<String, String> clientProperties() {
    Map<String, String> all = new LinkedHashMap<>(fileProperties);
    all.putAll(kafkaProperties);
    return Collections.unmodifiableMap(all);
  }

  /** The properties of {@code --consumer-property}, in the order given. */
  public Map<String, String> consumerProperties() {
    return Collections.unmodifiableMap(consumerProperties);
  }

  /** The properties of {@code --producer-property}, in the order given. */
  public Map<String, String> producerProperties() {
    return Collections.unmodifiableMap(producerProperties);
  }

  /**
   * What a feeder's producer takes: the {@link #clientProperties()} a producer uses, then
   * {@link #producerProperties()} (which win).
   */
  public Map<String, String> feederProducerProperties() {
    Map<String, String> all = ClientProperties.forClient(ClientProperties.Client.PRODUCER, clientProperties());
    all.putAll(producerProperties);
    return Collections.unmodifiableMap(all);
  }

  /** {@code --max-dead-letter-bytes}. */
  public int maxDeadLetterBytes() {
    return maxDeadLetterBytes;
  }

  /** The {@code --kafka-config} file, or null. */
  public Path kafkaConfig() {
    return kafkaConfig;
  }

  /**
   * Gives {@code job} the client properties ({@link KafkaJobBuilder#clientProperty} for {@link #clientProperties()},
   * {@link KafkaJobBuilder#sourceProperty} for {@code --consumer-property}, {@link KafkaJobBuilder#sinkProperty} for
   * {@code --producer-property}) and {@code --max-dead-letter-bytes}, then checks what needs them all: the largest
   * dead letter must fit the dead-letter sink's records as the producer properties set them.
   *
   * @throws ParameterException naming the option (and the key, or the limit)
   */
  public <B extends KafkaJobBuilder<B>> B applyTo(B job) {
    String option = "--kafka-property";
    try {
      for (Map.Entry<String, String> e : clientProperties().entrySet()) {
        option = kafkaProperties.containsKey(e.getKey()) ? "--kafka-property" : "--kafka-config " + kafkaConfig;
        job.clientProperty(e.getKey(), e.getValue());
      }
      option = "--consumer-property";
      consumerProperties.forEach(job::sourceProperty);
      option = "--producer-property";
      producerProperties.forEach(job::sinkProperty);
    } catch (IllegalArgumentException e) {
      throw new ParameterException(spec.commandLine(), option + ": " + e.getMessage(), e);
    }
    job.maxDeadLetterBytes(maxDeadLetterBytes);
    Map<String, String> sinks = ClientProperties.forClient(ClientProperties.Client.PRODUCER, clientProperties());
    sinks.putAll(producerProperties);
    try {
      KafkaInput.requireDeadLettersFit(maxDeadLetterBytes, sinks);
    } catch (IllegalArgumentException e) {
      String message = e.getMessage();
      throw new ParameterException(spec.commandLine(), (message.startsWith("maxDeadLetterBytes")
          ? "--max-dead-letter-bytes: " + message + " (raise max.request.size and buffer.memory with "
              + "--producer-property to keep more)"
          : "--producer-property/--kafka-property: " + message), e);
    }
    return job;
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
