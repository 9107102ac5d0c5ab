package io.linerate.jobs.kafka;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * What a job writes to Kafka, for {@link TopicPreflight} to compare with the topics' configs before the job is
 * submitted: each topic with its role (output, dead letters…), the largest record the job's sinks may write to any of
 * them, the topics written with the input records' own timestamps (the dedup job's raw output), and the input topic
 * (which must exist, and whose timestamp bounds those records passed).
 *
 * <p>The largest record is the one the job's size checks guarantee: the sinks' {@code max.request.size} or their
 * {@code buffer.memory}, whichever is smaller ({@link JsonTopics#maxRecordBytes(Map)}): the jobs dead-letter or refuse
 * what could be larger, and nothing smaller, so any topic may receive a record of that size.
 */
public final class WrittenTopics {

  private final Map<String, Set<String>> roles = new LinkedHashMap<>();
  private final Set<String> keepingInputTimestamps = new LinkedHashSet<>();
  private final String input;
  private final int largestRecordBytes;
  private final String largestRecordSource;
  private final String feeder;

  private WrittenTopics(String input, int largestRecordBytes, String largestRecordSource, String feeder) {
    this.input = input;
    this.largestRecordBytes = largestRecordBytes;
    this.largestRecordSource = largestRecordSource;
    this.feeder = feeder;
  }

  /**
   * Topics a job reading {@code input} writes through sinks with {@code sinkProperties} (its
   * {@link KafkaJobOptions#sinkProperties()}); add them with {@link #topic} and {@link #keepingInputTimestamps}.
   *
   * @throws IllegalArgumentException as {@link JsonTopics#maxRecordBytes(Map)}
   */
  public static WrittenTopics of(String input, Map<String, String> sinkProperties) {
    return new WrittenTopics(Objects.requireNonNull(input, "input"), JsonTopics.maxRecordBytes(sinkProperties),
        JsonTopics.recordLimits(sinkProperties), null);
  }

  /** Nothing written: nothing to check (a job that does not say what it writes). */
  public static WrittenTopics none() {
    return new WrittenTopics(null, 0, "", null);
  }

  /**
   * Topics the producer of the feeder {@code command} ({@code generate}, {@code replay}) writes; add them with
   * {@link #topic}. Nothing is read, so there is no input to check, and no record size is compared with the topics'
   * limits: a feeder's records are batches far below them, and its producer refuses a record too large for the topic
   * at once, where a missing topic makes it wait ({@code max.block.ms}). Messages name {@code command} as the writer.
   */
  public static WrittenTopics ofFeeder(String command) {
    return new WrittenTopics(null, 0, "", Objects.requireNonNull(command, "command"));
  }

  /** Adds {@code topic}, written as {@code role} (e.g. "output"); a topic with several roles is named with all. */
  public WrittenTopics topic(String role, String topic) {
    roles.computeIfAbsent(Objects.requireNonNull(topic, "topic"), t -> new LinkedHashSet<>())
        .add(Objects.requireNonNull(role, "role"));
    return this;
  }

  /** {@link #topic}, written with each input record's own timestamp (not the time of writing). */
  public WrittenTopics keepingInputTimestamps(String role, String topic) {
    topic(role, topic);
    keepingInputTimestamps.add(topic);
    return this;
  }

  /** The topics written, in the order added. */
  public Set<String> topics() {
    return Collections.unmodifiableSet(roles.keySet());
  }

  /** What {@code topic} is to the job, e.g. "output topic 'reports'" or "output and alerts topic 'reports'". */
  public String describe(String topic) {
    return String.join(" and ", roles.getOrDefault(topic, Set.of("written"))) + " topic '" + topic + "'";
  }

  /** The topics written with the input records' own timestamps. */
  public Set<String> keepingInputTimestamps() {
    return Collections.unmodifiableSet(keepingInputTimestamps);
  }

  /** The feeder command that writes the topics ({@link #ofFeeder}), or null when a job writes them. */
  public String feeder() {
    return feeder;
  }

  /** The topic the job reads; null for {@link #none()} and {@link #ofFeeder}. */
  public String input() {
    return input;
  }

  /** The largest record (a batch of one, as Kafka's producer estimates it) the job's sinks may write. */
  public int largestRecordBytes() {
    return largestRecordBytes;
  }

  /** Where {@link #largestRecordBytes()} comes from, e.g. "max.request.size 1048576, buffer.memory 33554432". */
  public String largestRecordSource() {
    return largestRecordSource;
  }
}
