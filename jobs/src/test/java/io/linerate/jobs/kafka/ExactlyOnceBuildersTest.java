package io.linerate.jobs.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
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
    assertThatThrownBy(() -> options.sinkProperty("max.request.size", "-1"))
        .hasMessageStartingWith("max.request.size");
    assertThatThrownBy(() -> options.sinkProperty(null, "1")).isInstanceOf(NullPointerException.class);
  }

  /**
   * A producer property the sink takes must leave a producer its task can create: the transactional producer refuses
   * acks other than all, retries 0, more than 5 requests in flight and values Kafka cannot parse, but only in the
   * sink's task, at run time, where the job fails and restarts on it. property(..) refuses them, naming the key.
   */
  @Test
  void sinkRefusesProducerPropertiesItsProducerCannotStartWith() throws Exception {
    String[][] bad = {{"acks", "1"}, {"acks", "0"}, {"retries", "0"}, {"max.in.flight.requests.per.connection", "6"},
        {"linger.ms", "soon"}, {"buffer.memory", "-1"}, {"compression.type", "brotli"}};
    for (String[] kv : bad) {
      ExactlyOnceSink.Builder<String> b = sink();
      try {
        b.property(kv[0], kv[1]);
      } catch (IllegalArgumentException refused) {
        assertThat(refused).as("%s=%s", kv[0], kv[1]).hasMessageContaining(kv[0]).hasMessageContaining(kv[1]);
        continue;
      }
      java.util.Properties config = producerConfig(b.build());
      config.put("transactional.id", "linerate-job-out-0-1"); // as Flink names the transaction of subtask 0
      assertThatCode(() -> new org.apache.kafka.clients.producer.KafkaProducer<byte[], byte[]>(config).close())
          .as("a producer with %s=%s", kv[0], kv[1]).doesNotThrowAnyException();
    }
    // the good ones stay: what a transactional producer takes
    for (String[] kv : new String[][] {{"acks", "all"}, {"acks", "-1"}, {"retries", "3"}, {"linger.ms", "50"},
        {"max.in.flight.requests.per.connection", "5"}, {"compression.type", "zstd"}, {"x.custom", "y"}}) {
      java.util.Properties config = producerConfig(sink().property(kv[0], kv[1]).build());
      config.put("transactional.id", "linerate-job-out-0-1");
      new org.apache.kafka.clients.producer.KafkaProducer<byte[], byte[]>(config).close();
    }
  }

  /**
   * Kafka's producer refuses an explicitly set delivery.timeout.ms below linger.ms + request.timeout.ms when the
   * sink's task creates it (KafkaProducer's configureDeliveryTimeout), so with the sink's own linger.ms of 20 ms a
   * delivery.timeout.ms of 30 s (request.timeout.ms's default) failed every task at run time. build() refuses it,
   * naming the three properties; the combinations a producer takes stay.
   */
  @Test
  void sinkRefusesADeliveryTimeoutItsProducerCannotStartWith() throws Exception {
    String[][][] combos = {{{"delivery.timeout.ms", "30000"}}, {{"delivery.timeout.ms", "30019"}},
        {{"request.timeout.ms", "60000"}, {"delivery.timeout.ms", "59000"}},
        {{"delivery.timeout.ms", "30100"}, {"linger.ms", "200"}}};
    for (String[][] combo : combos) {
      ExactlyOnceSink.Builder<String> b = sink();
      for (String[] kv : combo) {
        b.property(kv[0], kv[1]);
      }
      org.apache.flink.connector.kafka.sink.KafkaSink<String> built;
      try {
        built = b.build();
      } catch (IllegalArgumentException refused) {
        assertThat(refused).as(java.util.Arrays.deepToString(combo)).hasMessageContaining("delivery.timeout.ms")
            .hasMessageContaining("linger.ms").hasMessageContaining("request.timeout.ms");
        continue;
      }
      java.util.Properties config = producerConfig(built);
      config.put("transactional.id", "linerate-job-out-0-1");
      assertThatCode(() -> new org.apache.kafka.clients.producer.KafkaProducer<byte[], byte[]>(config).close())
          .as("a producer with %s", java.util.Arrays.deepToString(combo)).doesNotThrowAnyException();
    }
    for (String[][] combo : new String[][][] {{{"delivery.timeout.ms", "30020"}},
        {{"linger.ms", "0"}, {"delivery.timeout.ms", "30000"}}, {{"request.timeout.ms", "1000"},
        {"delivery.timeout.ms", "1020"}}, {{"linger.ms", "100"}}}) {
      ExactlyOnceSink.Builder<String> b = sink();
      for (String[] kv : combo) {
        b.property(kv[0], kv[1]);
      }
      java.util.Properties config = producerConfig(b.build());
      config.put("transactional.id", "linerate-job-out-0-1");
      new org.apache.kafka.clients.producer.KafkaProducer<byte[], byte[]>(config).close();
    }
  }

  /**
   * The consumer properties the Kafka connector overrides whatever the source was given: the documentation says the
   * source takes any consumer property but three, yet these were taken and silently replaced.
   */
  @Test
  void sourceRefusesConsumerPropertiesTheConnectorOverrides() throws Exception {
    String[][] overridden = {{"auto.offset.reset", "none"},
        {"key.deserializer", org.apache.kafka.common.serialization.StringDeserializer.class.getName()},
        {"value.deserializer", org.apache.kafka.common.serialization.StringDeserializer.class.getName()}};
    for (String[] kv : overridden) {
      ExactlyOnceSource.Builder<String> b = source();
      try {
        b.property(kv[0], kv[1]);
      } catch (IllegalArgumentException refused) {
        assertThat(refused).hasMessageContaining(kv[0]);
        continue;
      }
      java.lang.reflect.Field props = org.apache.flink.connector.kafka.source.KafkaSource.class.getDeclaredField("props");
      props.setAccessible(true);
      assertThat(((java.util.Properties) props.get(b.build())).getProperty(kv[0]))
          .as("%s given to the source", kv[0]).isEqualTo(kv[1]);
    }
  }

  /** A consumer property Kafka's consumer would refuse in every reader task is refused when given, naming it. */
  @Test
  void sourceRefusesConsumerValuesKafkaCannotTake() throws Exception {
    for (String[] kv : new String[][] {{"fetch.max.bytes", "lots"}, {"max.poll.records", "0"},
        {"check.crcs", "maybe"}}) {
      ExactlyOnceSource.Builder<String> b = source();
      try {
        b.property(kv[0], kv[1]);
      } catch (IllegalArgumentException refused) {
        assertThat(refused).hasMessageContaining(kv[0]).hasMessageContaining(kv[1]);
        continue;
      }
      java.lang.reflect.Field props = org.apache.flink.connector.kafka.source.KafkaSource.class.getDeclaredField("props");
      props.setAccessible(true);
      java.util.Properties config = (java.util.Properties) props.get(b.build());
      assertThatCode(() -> new org.apache.kafka.clients.consumer.KafkaConsumer<byte[], byte[]>(config).close())
          .as("a consumer with %s=%s", kv[0], kv[1]).doesNotThrowAnyException();
    }
    assertThat(source().property("fetch.max.bytes", "1048576").property("partition.discovery.interval.ms", "1000")
        .build()).isNotNull();
  }

  /**
   * The jobs' transaction timeout is checked when set, as the other job options are: a negative one passed the
   * builder and was blamed on the checkpoint interval when the job was defined.
   */
  @Test
  void jobOptionsCheckTheTransactionTimeoutWhenSet() {
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
    env.enableCheckpointing(10_000);
    // what the job's define said of it
    assertThatThrownBy(() -> ExactlyOnceSink.checkCheckpointing(env.getCheckpointConfig(), Duration.ofSeconds(-1)))
        .hasMessageNotContaining("execution.checkpointing.interval (PT10S) must be shorter");
    KafkaJobOptions options = new KafkaJobOptions(Duration.ZERO, Duration.ZERO);
    assertThatThrownBy(() -> options.transactionTimeout(Duration.ofSeconds(-1)))
        .isInstanceOf(IllegalArgumentException.class).hasMessage("transactionTimeout must be > 0, got PT-1S");
    assertThatThrownBy(() -> options.transactionTimeout(Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class).hasMessage("transactionTimeout must be > 0, got PT0S");
    assertThatThrownBy(() -> options.transactionTimeout(Duration.ofMinutes(20)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("transactionTimeout must be <= the broker's transaction.max.timeout.ms (PT15M), got PT20M");
    options.transactionTimeout(Duration.ofMinutes(15));
    assertThat(options.transactionTimeout()).isEqualTo(Duration.ofMinutes(15));
  }

  /**
   * The jobs' record-size limit follows their sinks' max.request.size and buffer.memory as configured (the producer
   * refuses a record larger than either): a buffer.memory below max.request.size lowers it, a larger
   * max.request.size raises it. Both were refused before, when the jobs' checks took Kafka's defaults.
   */
  @Test
  void jobOptionsSizeSettingsSetTheJobsRecordLimit() {
    KafkaJobOptions options = new KafkaJobOptions(Duration.ZERO, Duration.ZERO);
    options.sinkProperty("buffer.memory", "524288");
    assertThat(JsonTopics.maxValueBytes(options.sinkProperties()))
        .isEqualTo(524_288 - ExactlyOnceSink.RECORD_OVERHEAD);
    options.sinkProperty("buffer.memory", "67108864");
    options.sinkProperty("max.request.size", "10485760");
    assertThat(JsonTopics.maxValueBytes(options.sinkProperties()))
        .isEqualTo(10_485_760 - ExactlyOnceSink.RECORD_OVERHEAD);
    assertThat(JsonTopics.maxRecordBytes(options.sinkProperties())).isEqualTo(10_485_760);
    assertThat(ExactlyOnceSink.builder(new SimpleStringSchema()).property("buffer.memory", "524288").maxValueBytes())
        .isEqualTo(524_288 - ExactlyOnceSink.RECORD_OVERHEAD);
  }

  /**
   * A topic written with whole records (the dedup job's raw output) has one sink with that stream's serializer, so it
   * takes no other stream, before or after; other topics are unaffected.
   */
  @Test
  void aTopicOfWholeRecordsTakesNoOtherStream() {
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
    org.apache.flink.connector.kafka.sink.KafkaRecordSerializationSchema<String> records = (v, c, t) ->
        new org.apache.kafka.clients.producer.ProducerRecord<>("raw", v.getBytes(StandardCharsets.UTF_8));
    JsonTopics topics = new JsonTopics().add("json", env.fromData("a"), new SimpleStringSchema(), "a")
        .addRecords("raw", env.fromData("b"), records);
    assertThatThrownBy(() -> topics.add("raw", env.fromData("c"), new SimpleStringSchema(), "c"))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("topic raw is written with whole records");
    assertThatThrownBy(() -> topics.addRecords("raw", env.fromData("c"), records))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("topic raw is written with whole records");
    assertThatThrownBy(() -> topics.addRecords("json", env.fromData("c"), records))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("topic json already has JSON streams");
    topics.add("json", env.fromData("d"), new SimpleStringSchema(), "d");
  }

  /**
   * A topic name the broker refuses is refused when the source or sink is built, naming the option: it passed, and
   * the job failed only once it ran (the sink's producer with InvalidTopicException), again on every restart.
   */
  @Test
  void topicNamesKafkaRefusesAreRefusedWhenBuilt() {
    assertThatThrownBy(() -> source().topics("in", "bad topic").build()).isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("topics must be a Kafka topic name, got 'bad topic'");
    assertThatThrownBy(() -> sink().topic("hh/out").build()).isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("topic must be a Kafka topic name, got 'hh/out'");
    assertThatThrownBy(() -> sink().topic("..").build()).isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("topic must be a Kafka topic name, got '..'");
    String tooLong = "t".repeat(250);
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
    assertThatThrownBy(() -> new JsonTopics().add(tooLong, env.fromData("a"), new SimpleStringSchema(), "a"))
        .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("topic must be a Kafka topic name");
    assertThat(source().topics("in.put_1-x").build()).isNotNull();
    assertThat(sink().topic("t".repeat(249)).build()).isNotNull();
  }

  /**
   * The jobs' source and common client properties: a source property is checked when set as the source checks it;
   * a client property is checked as both the source and the sinks check it, and reaches each client that can use it
   * (a client-specific property of the same key wins); the admin clients get the common ones a Kafka admin client
   * knows, and a plugin's own (unknown) keys; the copy a built job takes keeps them all.
   */
  @Test
  void jobOptionsTakeSourceAndClientPropertiesForEveryClient() {
    KafkaJobOptions options = new KafkaJobOptions(Duration.ZERO, Duration.ZERO);
    options.clientProperty("security.protocol", "SASL_SSL");
    options.clientProperty("sasl.mechanism", "PLAIN");
    options.clientProperty("fetch.max.bytes", "2097152");
    options.clientProperty("linger.ms", "50");
    options.clientProperty("plugin.own.setting", "x");
    options.sourceProperty("fetch.max.bytes", "1048576");
    options.sinkProperty("linger.ms", "7");
    KafkaJobOptions copy = options.copy();
    assertThat(copy.sourceProperties()).containsExactly(java.util.Map.entry("security.protocol", "SASL_SSL"),
        java.util.Map.entry("sasl.mechanism", "PLAIN"), java.util.Map.entry("fetch.max.bytes", "1048576"),
        java.util.Map.entry("plugin.own.setting", "x"));
    assertThat(copy.sinkProperties()).containsExactly(java.util.Map.entry("security.protocol", "SASL_SSL"),
        java.util.Map.entry("sasl.mechanism", "PLAIN"), java.util.Map.entry("linger.ms", "7"),
        java.util.Map.entry("plugin.own.setting", "x"));
    assertThat(copy.adminProperties()).containsExactly(java.util.Map.entry("security.protocol", "SASL_SSL"),
        java.util.Map.entry("sasl.mechanism", "PLAIN"), java.util.Map.entry("plugin.own.setting", "x"));
    assertThat(ClientProperties.adminConfig("k:9092", copy.adminProperties()))
        .containsEntry("bootstrap.servers", "k:9092").containsEntry("security.protocol", "SASL_SSL");
    // refused when set, naming the key: what the source or a sink owns, what a client would refuse
    assertThatThrownBy(() -> options.sourceProperty("isolation.level", "read_uncommitted"))
        .hasMessageStartingWith("isolation.level is read_committed");
    assertThatThrownBy(() -> options.sourceProperty("group.id", "g")).hasMessageStartingWith("group.id has its own");
    assertThatThrownBy(() -> options.sourceProperty("fetch.max.bytes", "lots"))
        .hasMessageStartingWith("fetch.max.bytes is not a value Kafka's consumer takes");
    assertThatThrownBy(() -> options.clientProperty("transactional.id", "t"))
        .hasMessageStartingWith("transactional.id is set by the exactly-once sink itself");
    assertThatThrownBy(() -> options.clientProperty("bootstrap.servers", "k:1"))
        .hasMessageStartingWith("bootstrap.servers has its own option");
    assertThatThrownBy(() -> options.clientProperty("acks", "1")).hasMessageStartingWith("acks must be all");
    assertThat(options.sourceProperties()).doesNotContainKey("group.id");
  }

  /**
   * The properties Flink's Kafka source reads itself (Kafka's consumer does not know them): Flink never resolves a
   * config-provider placeholder there (it parsed ${env:X} as a number, or took it as the client id prefix), and its
   * parsers fail (or read "yes" as false) at run time; both are refused when set, naming the property.
   */
  @Test
  void flinkSourcePropertiesAreCheckedAsFlinkReadsThemAndTakeNoPlaceholder() throws Exception {
    ExactlyOnceSource.Builder<String> b = source().property("config.providers", "env")
        .property("config.providers.env.class", org.apache.kafka.common.config.provider.EnvVarConfigProvider.class
            .getName());
    for (String key : new String[] {"partition.discovery.interval.ms", "client.id.prefix",
        "register.consumer.metrics", "commit.offsets.on.checkpoint"}) {
      assertThatThrownBy(() -> b.property(key, "${env:LINERATE_TEST_VALUE}")).as(key)
          .hasMessageStartingWith(key + " is read by Flink's Kafka source itself, which does not resolve "
              + "config-provider placeholders");
    }
    assertThatThrownBy(() -> b.property("partition.discovery.interval.ms", "10s"))
        .hasMessage("partition.discovery.interval.ms must be a whole number of milliseconds (0 or less: no partition "
            + "discovery), as Flink's Kafka source parses it, got '10s'");
    assertThatThrownBy(() -> b.property("register.consumer.metrics", "yes"))
        .hasMessageStartingWith("register.consumer.metrics must be true or false");
    assertThatThrownBy(() -> b.property("commit.offsets.on.checkpoint", "1"))
        .hasMessageStartingWith("commit.offsets.on.checkpoint must be true or false");
    b.property("partition.discovery.interval.ms", "60000").property("register.consumer.metrics", "FALSE")
        .property("client.id.prefix", "edge-7");
    java.lang.reflect.Field props = org.apache.flink.connector.kafka.source.KafkaSource.class.getDeclaredField("props");
    props.setAccessible(true);
    java.util.Properties config = (java.util.Properties) props.get(b.build());
    assertThat(config.getProperty("partition.discovery.interval.ms")).isEqualTo("60000");
    assertThat(config.getProperty("client.id.prefix")).isEqualTo("edge-7");
    KafkaJobOptions options = new KafkaJobOptions(Duration.ZERO, Duration.ZERO);
    assertThatThrownBy(() -> options.sourceProperty("partition.discovery.interval.ms", "${env:X}"))
        .hasMessageContaining("does not resolve config-provider placeholders");
  }

  /**
   * The bounded source's admin client (the committed end offsets) gets the source's properties an admin client
   * knows (security settings) and not the consumer's own or Flink's, which it would warn about.
   */
  @Test
  void theBoundedSourcesAdminClientGetsTheSecuritySettings() throws Exception {
    org.apache.flink.connector.kafka.source.KafkaSource<String> built = source().bounded()
        .property("security.protocol", "SASL_SSL").property("sasl.jaas.config", "x required;")
        .property("fetch.max.bytes", "1048576").property("partition.discovery.interval.ms", "1000").build();
    java.lang.reflect.Field stopping = org.apache.flink.connector.kafka.source.KafkaSource.class
        .getDeclaredField("stoppingOffsetsInitializer");
    stopping.setAccessible(true);
    java.util.Map<String, Object> admin = ((ExactlyOnceSource.CommittedEndOffsets) stopping.get(built)).adminConfig();
    assertThat(admin).containsEntry("security.protocol", "SASL_SSL").containsEntry("sasl.jaas.config", "x required;")
        .containsEntry("bootstrap.servers", "127.0.0.1:1")
        .doesNotContainKeys("fetch.max.bytes", "partition.discovery.interval.ms");
  }

  /**
   * A secret (sasl.jaas.config, *.password…) set as a placeholder that cannot be resolved where the job is built is
   * left to the client with a warning; the warning showed the whole value (here a user name beside the placeholder).
   */
  @Test
  void warningsNeverShowASecretValue() {
    org.apache.logging.log4j.core.Logger logger = (org.apache.logging.log4j.core.Logger) org.apache.logging.log4j
        .LogManager.getLogger(ExactlyOnceSource.class);
    java.util.List<String> warnings = new java.util.concurrent.CopyOnWriteArrayList<>();
    org.apache.logging.log4j.core.appender.AbstractAppender capture =
        new org.apache.logging.log4j.core.appender.AbstractAppender("capture", null, null, true,
            org.apache.logging.log4j.core.config.Property.EMPTY_ARRAY) {
          @Override
          public void append(org.apache.logging.log4j.core.LogEvent event) {
            warnings.add(event.getMessage().getFormattedMessage());
          }
        };
    capture.start();
    logger.addAppender(capture);
    try {
      source().property("config.providers", "file")
          .property("config.providers.file.class",
              org.apache.kafka.common.config.provider.FileConfigProvider.class.getName())
          .property("sasl.jaas.config", "org.apache.kafka.common.security.plain.PlainLoginModule required "
              + "username=\"alice\" password=\"${file:/nonexistent/linerate/secrets.properties:password}\";")
          .build();
    } finally {
      logger.removeAppender(capture);
    }
    assertThat(warnings).anySatisfy(w -> assertThat(w).startsWith("sasl.jaas.config ([hidden]) is not checked"));
    assertThat(warnings).allSatisfy(w -> assertThat(w).doesNotContain("alice").doesNotContain("PlainLoginModule"));
    assertThat(ClientProperties.secret("ssl.keystore.password")).isTrue();
    assertThat(ClientProperties.secret("sasl.oauthbearer.client.credentials.client.secret")).isTrue();
    assertThat(ClientProperties.secret("plugin.api.token")).isTrue();
    assertThat(ClientProperties.secret("security.protocol")).isFalse();
    assertThat(ClientProperties.shown("linger.ms", "5")).isEqualTo("5");
  }

  /** A key serializer given to a sink whose record serializer makes the whole record was silently ignored. */
  @Test
  void sinkRefusesAKeySerializerItWouldIgnore() {
    ExactlyOnceSink.Builder<byte[]> records = ExactlyOnceSink.builder(new JsonTopics.WriteTime("out"))
        .bootstrapServers("127.0.0.1:1").jobName("job").topic("out")
        .keySerializer(v -> "key".getBytes(java.nio.charset.StandardCharsets.UTF_8));
    assertThatThrownBy(records::build).isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("keySerializer is for a sink built with a value serializer");
    assertThat(sink().keySerializer(new SimpleStringSchema()).build()).isNotNull();
  }

  static java.util.Properties producerConfig(org.apache.flink.connector.kafka.sink.KafkaSink<?> sink) throws Exception {
    java.lang.reflect.Method m = org.apache.flink.connector.kafka.sink.KafkaSink.class.getDeclaredMethod("getKafkaProducerConfig");
    m.setAccessible(true);
    java.util.Properties config = new java.util.Properties();
    config.putAll((java.util.Properties) m.invoke(sink));
    return config;
  }
}
