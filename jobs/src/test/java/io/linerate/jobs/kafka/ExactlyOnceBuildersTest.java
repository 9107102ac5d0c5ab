package io.linerate.jobs.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;

import org.apache.flink.api.common.serialization.SimpleStringSchema;
import org.apache.flink.api.connector.source.Boundedness;
import org.apache.flink.core.execution.CheckpointingMode;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.junit.jupiter.api.Test;

/** The exactly-once source and sink builders: defaults, and errors that name the option (no broker needed). */
class ExactlyOnceBuildersTest {

  private static ExactlyOnceSource.Builder<String> source() {
    return ExactlyOnceSource.builder(new SimpleStringSchema()).bootstrapServers("127.0.0.1:1").topics("in").jobName("job");
  }

  private static ExactlyOnceSink.Builder<String> sink() {
    return ExactlyOnceSink.builder(new SimpleStringSchema()).bootstrapServers("127.0.0.1:1").topic("out").jobName("job");
  }

  @Test
  void sourceBuildsUnboundedUnlessAsked() {
    assertThat(source().build().getBoundedness()).isEqualTo(Boundedness.CONTINUOUS_UNBOUNDED);
    assertThat(source().bounded().build().getBoundedness()).isEqualTo(Boundedness.BOUNDED);
  }

  @Test
  void sourceNamesTheMissingOrForbiddenOption() {
    assertThatThrownBy(() -> source().bootstrapServers(null).build()).hasMessage("bootstrapServers must be set, got nothing");
    assertThatThrownBy(() -> source().topics().build()).hasMessage("topics must name at least one topic");
    assertThatThrownBy(() -> source().topics("a", " ").build()).hasMessage("topics must be set, got ' '");
    assertThatThrownBy(() -> source().jobName("").build()).hasMessage("jobName must be set, got ''");
    assertThatThrownBy(() -> source().property("isolation.level", "read_uncommitted"))
        .hasMessage("isolation.level is read_committed for exactly-once input and cannot be changed, got read_uncommitted");
    assertThatThrownBy(() -> source().property("group.id", "g")).hasMessage("group.id has its own option (groupId), not property(..)");
  }

  @Test
  void sinkDerivesItsTransactionalIdPrefixFromJobAndTopic() {
    assertThat(sink().jobName("heavy hitters").topic("hh/out").transactionalIdPrefix()).isEqualTo("linerate-heavy-hitters-hh-out");
    assertThat(sink().transactionalIdPrefix("mine").transactionalIdPrefix()).isEqualTo("mine");
    assertThat(sink().build()).isNotNull();
  }

  @Test
  void sinkNamesTheMissingOrOutOfRangeOption() {
    assertThatThrownBy(() -> sink().bootstrapServers(" ").build()).hasMessage("bootstrapServers must be set, got ' '");
    assertThatThrownBy(() -> sink().topic(null).build()).hasMessage("topic must be set, got nothing");
    assertThatThrownBy(() -> sink().jobName(null).build()).hasMessageStartingWith("jobName must be set (it names the transactional id prefix)");
    assertThatThrownBy(() -> sink().transactionTimeout(Duration.ZERO).build()).hasMessage("transactionTimeout must be > 0, got PT0S");
    assertThatThrownBy(() -> sink().transactionTimeout(Duration.ofMinutes(20)).build())
        .hasMessage("transactionTimeout must be <= the broker's transaction.max.timeout.ms (PT15M), got PT20M");
    assertThat(sink().transactionTimeout(Duration.ofMinutes(20)).brokerMaxTransactionTimeout(Duration.ofHours(1)).build()).isNotNull();
    assertThatThrownBy(() -> sink().property("transaction.timeout.ms", "1000"))
        .hasMessageContaining("transaction.timeout.ms is set by the exactly-once sink itself (use transactionTimeout(..))");
    assertThatThrownBy(() -> sink().property("enable.idempotence", "false")).hasMessageContaining("enable.idempotence");
  }

  @Test
  void sinkToChecksTheJobsCheckpointing() {
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
    DataStream<String> stream = env.fromData("a");
    assertThatThrownBy(() -> sink().sinkTo(stream)).hasMessageStartingWith("execution.checkpointing.interval must be set");
    env.enableCheckpointing(Duration.ofMinutes(10).toMillis());
    assertThatThrownBy(() -> sink().sinkTo(stream))
        .hasMessageStartingWith("execution.checkpointing.interval (PT10M) must be shorter than the sink's transactionTimeout (PT10M)");
    env.enableCheckpointing(1_000, CheckpointingMode.AT_LEAST_ONCE);
    assertThatThrownBy(() -> sink().sinkTo(stream)).hasMessage(
        "execution.checkpointing.mode must be EXACTLY_ONCE for the exactly-once Kafka sink, got AT_LEAST_ONCE");
    env.enableCheckpointing(1_000, CheckpointingMode.EXACTLY_ONCE);
    assertThat(sink().sinkTo(stream)).isNotNull();
    // Flink's default checkpoint timeout (10 min) would let a checkpoint commit transactions the broker aborted at
    // 10 min: lowered to half of the timeout less a tenth of it (the default transaction timeout 10 min), as a
    // transaction lives through two checkpoints when the second waits for a slow first one
    assertThat(env.getCheckpointConfig().getCheckpointTimeout()).isEqualTo((600_000 - 60_000) / 2);
    env.getCheckpointConfig().setCheckpointTimeout(60_000); // shorter ones stay
    assertThat(sink().sinkTo(stream)).isNotNull();
    assertThat(env.getCheckpointConfig().getCheckpointTimeout()).isEqualTo(60_000);
    env.enableCheckpointing(Duration.ofMinutes(9).plusSeconds(5).toMillis(), CheckpointingMode.EXACTLY_ONCE);
    assertThatThrownBy(() -> sink().sinkTo(stream)).hasMessageStartingWith("execution.checkpointing.interval (PT9M5S)"
        + " must be shorter than the sink's transactionTimeout (PT10M) by at least PT10S plus a margin");
  }

  /**
   * The longest value a sink can send: its max.request.size (Kafka's default unless set) less the record overhead,
   * which covers Kafka's own upper bound for a one-record batch of a value that long.
   */
  @Test
  void sinksKnowTheLongestValueTheyCanSend() {
    assertThat(ExactlyOnceSink.builder(new SimpleStringSchema()).maxRequestSize()).isEqualTo(1_048_576);
    assertThat(ExactlyOnceSink.builder(new SimpleStringSchema()).property("max.request.size", "2000000")
        .maxValueBytes()).isEqualTo(2_000_000 - ExactlyOnceSink.RECORD_OVERHEAD);
    assertThat(JsonTopics.maxValueBytes()).isEqualTo(1_048_576 - ExactlyOnceSink.RECORD_OVERHEAD);
    for (int length : new int[] {0, 100, 1 << 14, JsonTopics.maxValueBytes()}) {
      int kafka = org.apache.kafka.common.record.AbstractRecords.estimateSizeInBytesUpperBound(
          org.apache.kafka.common.record.RecordBatch.CURRENT_MAGIC_VALUE,
          org.apache.kafka.common.record.CompressionType.NONE, (byte[]) null, new byte[length],
          org.apache.kafka.common.record.Record.EMPTY_HEADERS);
      assertThat(kafka - length).as("overhead of a %d-byte value", length)
          .isLessThanOrEqualTo(ExactlyOnceSink.RECORD_OVERHEAD);
    }
  }

  /** The jobs' sink producer properties: checked as the sink checks them, kept in order, copied with the options. */
  @Test
  void jobOptionsTakeSinkPropertiesTheSinkWouldTake() {
    KafkaJobOptions options = new KafkaJobOptions(Duration.ZERO, Duration.ZERO);
    options.sinkProperty("buffer.memory", "4194304");
    options.sinkProperty("compression.type", "lz4");
    KafkaJobOptions copy = options.copy();
    options.sinkProperty("linger.ms", "5");
    assertThat(copy.sinkProperties()).containsExactly(java.util.Map.entry("buffer.memory", "4194304"),
        java.util.Map.entry("compression.type", "lz4"));
    assertThat(options.sinkProperties()).containsKey("linger.ms");
    assertThatThrownBy(() -> options.sinkProperty("transactional.id", "x"))
        .hasMessageStartingWith("transactional.id is set by the exactly-once sink itself");
    assertThatThrownBy(() -> options.sinkProperty("value.serializer", "x.Y"))
        .hasMessageStartingWith("value.serializer is set by the exactly-once sink itself");
    assertThatThrownBy(() -> options.sinkProperty("max.request.size", "10485760"))
        .hasMessageStartingWith("max.request.size is fixed for the jobs' sinks");
    assertThatThrownBy(() -> options.sinkProperty(null, "1")).isInstanceOf(NullPointerException.class);
  }
}
