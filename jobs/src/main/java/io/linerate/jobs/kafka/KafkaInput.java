package io.linerate.jobs.kafka;

import java.io.Serializable;
import java.util.Map;

import io.linerate.jobs.format.DeadLetter;
import io.linerate.jobs.format.Decoded;
import io.linerate.jobs.format.KafkaDecoding;
import io.linerate.jobs.format.SplitDecoded;
import io.linerate.jobs.local.JobTopics;
import org.apache.flink.api.common.eventtime.SerializableTimestampAssigner;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

/**
 * The input side of a Kafka-to-Kafka job: the input topic read by an {@link ExactlyOnceSource}
 * ({@code read_committed}, offsets in checkpoints, consumer group = the job's name, the consumer properties of
 * {@link KafkaJobOptions#sourceProperties()}) through a {@link KafkaDecoding},
 * watermarked per partition (bounded out-of-orderness, idle partitions ignored after the idleness unless it is 0),
 * then split by {@link SplitDecoded} (uid {@code split-dead-letters}): the decoded values, with the undecodable
 * records on the {@link DeadLetter#TAG} side output. Dead letters carry no event time ({@code Long.MIN_VALUE}) and
 * never reach the watermark generator ({@link DeadLettersNotActivity}): they never move the watermark and are not
 * activity, so a partition receiving only undecodable records goes idle like a silent one.
 */
public final class KafkaInput {

  private KafkaInput() {
  }

  /**
   * The event time of a decoded value (never called for dead letters); {@code Long.MIN_VALUE} (a value without its
   * own time, e.g. {@code Event.NO_TIMESTAMP}) stands for the Kafka record's timestamp.
   */
  @FunctionalInterface
  public interface EventTime<T> extends Serializable {
    long of(T value);
  }

  /**
   * The decoded values of {@code topics.input()}; dead letters on {@link DeadLetter#TAG}.
   *
   * @param jobName the consumer group and source name
   * @param eventTime the Flink timestamp of each decoded value
   * @throws IllegalArgumentException if a dead letter of {@code decoding} could be longer than the job's sinks can
   *     write ({@link #requireDeadLettersFit})
   */
  public static <T> SingleOutputStreamOperator<T> read(StreamExecutionEnvironment env, JobTopics topics,
      String jobName, KafkaDecoding<T> decoding, TypeInformation<T> valueType, EventTime<T> eventTime,
      KafkaJobOptions options) {
    requireDeadLettersFit(decoding, options.sinkProperties());
    ExactlyOnceSource.Builder<Decoded<T>> source = ExactlyOnceSource.builder(decoding)
        .bootstrapServers(topics.bootstrapServers())
        .topics(topics.input())
        .jobName(jobName);
    options.sourceProperties().forEach(source::property);
    if (options.bounded()) {
      source.bounded();
    }
    DataStream<Decoded<T>> decoded = source.fromSource(env, watermarks(eventTime, options));
    return SplitDecoded.split(decoded, valueType).uid("split-dead-letters");
  }

  /**
   * Refuses a {@code maxDeadLetterBytes} whose largest dead letter ({@link KafkaDecoding#maxDeadLetterJsonBytes()})
   * the dead-letter sink's producer could not send ({@link JsonTopics#maxValueBytes(Map)} with the job's producer
   * properties): the sink would fail the job on the dead letter of a large malformed record, and again on every
   * restart.
   *
   * @throws IllegalArgumentException naming the option, the limit and the largest setting that fits
   */
  public static void requireDeadLettersFit(KafkaDecoding<?> decoding, Map<String, String> producerProperties) {
    requireDeadLettersFit(decoding.maxDeadLetterBytes(), producerProperties);
  }

  /**
   * {@link #requireDeadLettersFit(KafkaDecoding, Map)} for a {@link KafkaDecoding} keeping {@code maxDeadLetterBytes}.
   *
   * @throws IllegalArgumentException naming the option, the limit and the largest setting that fits
   */
  public static void requireDeadLettersFit(int maxDeadLetterBytes, Map<String, String> producerProperties) {
    int limit = JsonTopics.maxValueBytes(producerProperties);
    long json = KafkaDecoding.maxDeadLetterJsonBytes(maxDeadLetterBytes);
    if (json > limit) {
      throw new IllegalArgumentException("maxDeadLetterBytes " + maxDeadLetterBytes + " is too large: "
          + "a dead letter keeping that many bytes of the value, of the key and of the headers can take "
          + json + " bytes of JSON, more than the " + limit + " bytes the dead-letter "
          + "sink's producer can send (max.request.size and buffer.memory less the record overhead); at most "
          + KafkaDecoding.largestMaxDeadLetterBytes(limit) + " fits");
    }
  }

  /**
   * Bounded out-of-orderness from {@code eventTime}, with idleness unless it is zero; dead letters are not passed to
   * the generators (neither a timestamp nor activity).
   */
  public static <T> WatermarkStrategy<Decoded<T>> watermarks(EventTime<T> eventTime, KafkaJobOptions options) {
    WatermarkStrategy<Decoded<T>> w = WatermarkStrategy.<Decoded<T>>forBoundedOutOfOrderness(options.outOfOrderness())
        .withTimestampAssigner(new DecodedTime<>(eventTime));
    return new DeadLettersNotActivity<>(options.idleness().isZero() ? w : w.withIdleness(options.idleness()));
  }

  /**
   * The value's event time, or the Kafka record's timestamp when the value has none ({@code Long.MIN_VALUE}, as
   * {@code Event.NO_TIMESTAMP}); {@code Long.MIN_VALUE} for a dead letter.
   */
  static final class DecodedTime<T> implements SerializableTimestampAssigner<Decoded<T>> {
    private static final long serialVersionUID = 1L;
    private final EventTime<T> eventTime;

    DecodedTime(EventTime<T> eventTime) {
      this.eventTime = eventTime;
    }

    @Override
    public long extractTimestamp(Decoded<T> d, long kafkaTimestamp) {
      if (d.value == null) {
        return Long.MIN_VALUE;
      }
      long t = eventTime.of(d.value);
      return t == Long.MIN_VALUE ? kafkaTimestamp : t;
    }
  }
}
