package io.linerate.jobs.kafka;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.ArrayList;

import io.linerate.jobs.format.JsonSerialization;
import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.api.common.serialization.SerializationSchema;
import org.apache.flink.connector.kafka.sink.KafkaRecordSerializationSchema;
import org.apache.flink.api.common.typeinfo.PrimitiveArrayTypeInfo;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.kafka.clients.producer.ProducerRecord;

/**
 * The output side of a Kafka-to-Kafka job: streams of different types, each turned into JSON bytes by its
 * {@link JsonSerialization} (or another schema writing JSON bytes), collected per topic and written by ONE exactly-once
 * sink per topic (two sinks writing one topic would share a transactional id prefix and fence each other). Used by
 * the heavy-hitters, flow-meter and dedup jobs. A topic may instead take one stream of whole records
 * ({@link #addRecords}: key, headers and timestamp of their own, e.g. the dedup job's raw output).
 */
public final class JsonTopics {

  private final Map<String, List<DataStream<byte[]>>> byTopic = new LinkedHashMap<>();
  private final Map<String, Records<?>> recordsByTopic = new LinkedHashMap<>();

  /** A stream written as whole records by its own serializer. */
  private record Records<T>(DataStream<T> stream, KafkaRecordSerializationSchema<T> serializer) {
  }

  /**
   * Adds {@code stream}, written to {@code topic} as {@code json} renders it; its map to bytes is named
   * {@code <name> as JSON}, uid {@code json-<name>}.
   *
   * @throws IllegalArgumentException if {@code topic} is not a Kafka topic name
   */
  public <T> JsonTopics add(String topic, DataStream<T> stream, SerializationSchema<T> json, String name) {
    ExactlyOnceSource.requireTopic(Objects.requireNonNull(topic, "topic"), "topic");
    requireNoRecords(topic);
    DataStream<byte[]> bytes = stream.map(new ToJsonBytes<>(json))
        .returns(PrimitiveArrayTypeInfo.BYTE_PRIMITIVE_ARRAY_TYPE_INFO)
        .name(name + " as JSON").uid("json-" + name);
    byTopic.computeIfAbsent(topic, t -> new ArrayList<>()).add(bytes);
    return this;
  }

  /**
   * Adds {@code stream}, written to {@code topic} by {@code records}, which makes each whole Kafka record (key, value,
   * headers, timestamp) and must write it to {@code topic}. The topic takes no other stream: a sink has one
   * serializer, and records of their own could not be told from JSON values without key.
   *
   * @throws IllegalArgumentException if {@code topic} is not a Kafka topic name or already has a stream
   */
  public <T> JsonTopics addRecords(String topic, DataStream<T> stream, KafkaRecordSerializationSchema<T> records) {
    ExactlyOnceSource.requireTopic(Objects.requireNonNull(topic, "topic"), "topic");
    requireNoRecords(topic);
    if (byTopic.containsKey(topic)) {
      throw new IllegalArgumentException("topic " + topic + " already has JSON streams; a topic written with whole "
          + "records takes no other stream");
    }
    recordsByTopic.put(topic, new Records<>(Objects.requireNonNull(stream, "stream"),
        Objects.requireNonNull(records, "records")));
    return this;
  }

  private void requireNoRecords(String topic) {
    if (recordsByTopic.containsKey(topic)) {
      throw new IllegalArgumentException("topic " + topic + " is written with whole records (addRecords) and takes "
          + "no other stream");
    }
  }

  /**
   * One exactly-once sink per topic, transactional ids prefixed {@code linerate-<jobName>-<topic>}; records without
   * key, stamped with the time they are written ({@link WriteTime}).
   */
  public void sinkAll(String bootstrapServers, String jobName, Duration transactionTimeout) {
    sinkAll(bootstrapServers, jobName, null, transactionTimeout, Map.of());
  }

  /**
   * One exactly-once sink per topic, transactional ids prefixed {@link #transactionalIdPrefix}{@code (jobName,
   * instance, topic)}; JSON records without key, stamped with the time they are written ({@link WriteTime}); the
   * topics of {@link #addRecords} as their serializers make them.
   *
   * @param instance the name of this instance of the job ({@code --job-name}), or null
   * @param producerProperties further producer properties of every sink ({@link KafkaJobOptions#sinkProperties})
   */
  public void sinkAll(String bootstrapServers, String jobName, String instance, Duration transactionTimeout,
                      Map<String, String> producerProperties) {
    byTopic.forEach((topic, streams) -> {
      DataStream<byte[]> all = streams.get(0);
      for (int i = 1; i < streams.size(); i++) {
        all = all.union(streams.get(i));
      }
      configure(sink(topic), topic, bootstrapServers, jobName, instance, transactionTimeout, producerProperties)
          .sinkTo(all);
    });
    recordsByTopic.forEach((topic, records) -> sinkRecords(topic, records, bootstrapServers, jobName, instance,
        transactionTimeout, producerProperties));
  }

  /** The sink of a topic written with whole records: as the JSON sinks, but records made by the stream's serializer. */
  private static <T> void sinkRecords(String topic, Records<T> records, String bootstrapServers, String jobName,
                                      String instance, Duration transactionTimeout,
                                      Map<String, String> producerProperties) {
    configure(ExactlyOnceSink.builder(records.serializer()).topic(topic), topic, bootstrapServers, jobName, instance,
        transactionTimeout, producerProperties)
        .sinkTo(records.stream());
  }

  /** {@code sink} with the settings every sink of {@link #sinkAll} shares. */
  private static <T> ExactlyOnceSink.Builder<T> configure(ExactlyOnceSink.Builder<T> sink, String topic,
                                                          String bootstrapServers, String jobName, String instance,
                                                          Duration transactionTimeout,
                                                          Map<String, String> producerProperties) {
    producerProperties.forEach(sink::property);
    return sink
        .bootstrapServers(bootstrapServers)
        .jobName(jobName)
        .transactionalIdPrefix(transactionalIdPrefix(jobName, instance, topic))
        .transactionTimeout(transactionTimeout);
  }

  /**
   * {@code linerate-<jobName>-<topic>} for an unnamed job (the prefix of earlier versions: a restored job finds and
   * aborts its lingering transactions by it), {@code linerate-<jobName>.<instance>.<topic>} for a named one. An
   * instance name holds no '.' ({@link KafkaJobOptions#JOB_NAME_RULE}) and job kinds none either, so two (job,
   * instance, topic) triples never share a prefix: two instances, or two kinds of job under one name, never fence
   * each other's transactions.
   */
  public static String transactionalIdPrefix(String jobName, String instance, String topic) {
    return instance == null ? sink(topic).jobName(jobName).transactionalIdPrefix()
        : "linerate-" + jobName + "." + instance + "." + topic;
  }

  /**
   * The longest JSON value the sinks of {@link #sinkAll} can write with Kafka's default {@code max.request.size} and
   * {@code buffer.memory} ({@link ExactlyOnceSink.Builder#maxValueBytes()}): a job must turn a record whose JSON could
   * be longer into a dead letter beforehand, or the sink fails the job on it, and again on every replay. A job whose
   * sinks take producer properties uses {@link #maxValueBytes(Map)}.
   */
  public static int maxValueBytes() {
    return sink("any").maxValueBytes();
  }

  /** {@link #maxRecordBytes(Map)} with Kafka's defaults. */
  public static int maxRecordBytes() {
    return maxRecordBytes(Map.of());
  }

  /**
   * The largest whole record (key, value, headers) the sinks of {@link #sinkAll} can write with
   * {@code producerProperties}, as the producer estimates a record's size
   * ({@code AbstractRecords.estimateSizeInBytesUpperBound}) before it refuses a larger one: the smaller of
   * {@code max.request.size} and {@code buffer.memory}; {@link #maxValueBytes(Map)} is this less the overhead of a
   * record without key and headers.
   *
   * @throws IllegalArgumentException as {@link #maxValueBytes(Map)}
   */
  public static int maxRecordBytes(Map<String, String> producerProperties) {
    return maxValueBytes(producerProperties) + ExactlyOnceSink.RECORD_OVERHEAD;
  }

  /**
   * The longest JSON value the sinks of {@link #sinkAll} can write with {@code producerProperties} (their
   * {@code max.request.size} and {@code buffer.memory} as set there, else Kafka's defaults).
   *
   * @throws IllegalArgumentException naming the property if either is a config-provider placeholder that cannot be
   *     resolved here: the size checks need its value ({@link ExactlyOnceSink.Builder#maxValueBytes()})
   */
  public static int maxValueBytes(Map<String, String> producerProperties) {
    ExactlyOnceSink.Builder<byte[]> sink = sink("any");
    producerProperties.forEach(sink::property);
    return sink.maxValueBytes();
  }

  /**
   * The two settings {@link #maxRecordBytes(Map)} is the smaller of, as the sinks take them from
   * {@code producerProperties}: {@code "max.request.size N, buffer.memory M"}.
   *
   * @throws IllegalArgumentException as {@link #maxValueBytes(Map)}
   */
  static String recordLimits(Map<String, String> producerProperties) {
    ExactlyOnceSink.Builder<byte[]> sink = sink("any");
    producerProperties.forEach(sink::property);
    return "max.request.size " + sink.maxRequestSize() + ", buffer.memory " + sink.bufferMemory();
  }

  /** Checks a producer property as the sinks of {@link #sinkAll} would take it; throws as they would. */
  static void checkSinkProperty(String key, String value) {
    sink("any").property(key, value);
  }

  private static ExactlyOnceSink.Builder<byte[]> sink(String topic) {
    return ExactlyOnceSink.builder(new WriteTime(topic)).topic(topic);
  }

  /** A record's JSON bytes (a class holding the schema object, not a method reference). */
  static final class ToJsonBytes<T> implements MapFunction<T, byte[]> {
    private static final long serialVersionUID = 1L;
    private final SerializationSchema<T> json;

    ToJsonBytes(SerializationSchema<T> json) {
      this.json = Objects.requireNonNull(json, "json");
    }

    @Override
    public byte[] map(T value) {
      return json.serialize(value);
    }
  }

  /**
   * The bytes as the value of a record of {@code topic} without key, stamped with the time of writing: not the
   * element's Flink timestamp, which can be far off the broker's clock (event time of a replayed capture, or
   * {@code Long.MAX_VALUE} for what a bounded input's final watermark flushes) and then makes the broker refuse the
   * record ({@code message.timestamp.after.max.ms} is 1 h by default since Kafka 4.0).
   */
  static final class WriteTime implements KafkaRecordSerializationSchema<byte[]> {
    private static final long serialVersionUID = 1L;
    private final String topic;

    WriteTime(String topic) {
      this.topic = topic;
    }

    @Override
    public ProducerRecord<byte[], byte[]> serialize(byte[] element, KafkaSinkContext context, Long timestamp) {
      return new ProducerRecord<>(topic, null, null, null, element);
    }
  }
}
