package io.linerate.jobs.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Properties;

import org.apache.flink.api.common.serialization.SimpleStringSchema;
import org.apache.flink.connector.kafka.source.KafkaSource;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.common.config.provider.EnvVarConfigProvider;
import org.apache.kafka.common.config.provider.FileConfigProvider;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Kafka config-provider placeholders in the sink's, the source's and the jobs' client properties, with Kafka's real
 * providers: numeric and enum values set as {@code ${file:…}} were refused as unparsable, although Kafka's client
 * resolves them itself. They are now checked as resolved; without {@code config.providers} they are refused, saying
 * that it is needed.
 */
class KafkaConfigProvidersTest {

  @TempDir
  Path folder;
  private Path file;

  @BeforeEach
  void writeProviderFile() throws Exception {
    file = folder.resolve("client.properties");
    Files.writeString(file, "linger=50\nacks=all\nacksOne=1\nbad=soon\nfetch=1048576\nzero=0\nbuffer=67108864\n"
        + "smallBuffer=524288\n");
  }

  private String placeholder(String key) {
    return "${file:" + file + ":" + key + "}";
  }

  private static ExactlyOnceSink.Builder<String> sink() {
    return ExactlyOnceSink.builder(new SimpleStringSchema()).bootstrapServers("127.0.0.1:1").topic("out").jobName("job")
        .property("config.providers", "file")
        .property("config.providers.file.class", FileConfigProvider.class.getName());
  }

  private static ExactlyOnceSource.Builder<String> source() {
    return ExactlyOnceSource.builder(new SimpleStringSchema()).bootstrapServers("127.0.0.1:1").topics("in")
        .jobName("job").property("config.providers", "file")
        .property("config.providers.file.class", FileConfigProvider.class.getName());
  }

  /** The sink takes placeholders its producer resolves, hands the producer the placeholder, and the producer starts. */
  @Test
  void sinkTakesPlaceholdersItsProducerResolves() throws Exception {
    Properties config = ExactlyOnceBuildersTest.producerConfig(sink().property("linger.ms", placeholder("linger"))
        .property("acks", placeholder("acks")).property("delivery.timeout.ms", "30100").build());
    assertThat(config.getProperty("linger.ms")).isEqualTo(placeholder("linger")); // the secret stays in its file
    config.put("transactional.id", "linerate-job-out-0-1");
    assertThatCode(() -> new KafkaProducer<byte[], byte[]>(config).close()).doesNotThrowAnyException();
  }

  /** A placeholder resolving to a value the producer refuses is refused by build(), naming the property. */
  @Test
  void sinkChecksTheResolvedValues() {
    assertThatThrownBy(() -> sink().property("linger.ms", placeholder("bad")).build())
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("linger.ms")
        .hasMessageContaining(placeholder("bad")).hasMessageContaining("soon");
    assertThatThrownBy(() -> sink().property("acks", placeholder("acksOne")).build())
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("acks must be all");
    // delivery.timeout.ms against the resolved linger.ms: 30 100 < 50 + 30 000 is false, 30 040 < 30 050 refused
    assertThatThrownBy(() -> sink().property("linger.ms", placeholder("linger"))
        .property("delivery.timeout.ms", "30040").build()).hasMessageContaining("delivery.timeout.ms");
  }

  /** Without config.providers a placeholder is refused, naming the property and config.providers. */
  @Test
  void placeholdersWithoutConfigProvidersAreRefused() {
    assertThatThrownBy(() -> ExactlyOnceSink.builder(new SimpleStringSchema()).bootstrapServers("127.0.0.1:1")
        .topic("out").jobName("job").property("linger.ms", "${env:KAFKA_LINGER}").build())
        .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("linger.ms ")
        .hasMessageContaining("config.providers");
    assertThatThrownBy(() -> ExactlyOnceSource.builder(new SimpleStringSchema()).bootstrapServers("127.0.0.1:1")
        .topics("in").jobName("job").property("max.poll.records", "${env:POLL}").build())
        .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("max.poll.records ")
        .hasMessageContaining("config.providers");
    assertThatThrownBy(() -> sink().property("linger.ms", "${env:KAFKA_LINGER}").build())
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("linger.ms")
        .hasMessageContaining("'env'").hasMessageContaining("config.providers (file)");
  }

  /** A value whose file is not on this machine (it may be on the task managers) is left to the client, unchecked. */
  @Test
  void placeholdersThatCannotBeResolvedHereAreLeftToTheClient() throws Exception {
    String elsewhere = "${file:" + folder.resolve("only-on-the-task-managers.properties") + ":linger}";
    Properties config = ExactlyOnceBuildersTest.producerConfig(sink().property("linger.ms", elsewhere)
        .property("delivery.timeout.ms", "30000").build());
    assertThat(config.getProperty("linger.ms")).isEqualTo(elsewhere);
  }

  /** The environment provider (a variable every process has; its value is not a number, so it is refused). */
  @Test
  void envProviderValuesAreCheckedToo() {
    assertThat(System.getenv("PATH")).isNotNull();
    ExactlyOnceSink.Builder<String> b = ExactlyOnceSink.builder(new SimpleStringSchema())
        .bootstrapServers("127.0.0.1:1").topic("out").jobName("job").property("config.providers", "env")
        .property("config.providers.env.class", EnvVarConfigProvider.class.getName())
        .property("client.id", "${env:PATH}").property("linger.ms", "${env:PATH}");
    assertThatThrownBy(b::build).isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("linger.ms (");
  }

  @Test
  void sourceChecksTheResolvedValues() throws Exception {
    KafkaSource<String> built = source().property("fetch.max.bytes", placeholder("fetch")).build();
    java.lang.reflect.Field props = KafkaSource.class.getDeclaredField("props");
    props.setAccessible(true);
    Properties config = (Properties) props.get(built);
    assertThat(config.getProperty("fetch.max.bytes")).isEqualTo(placeholder("fetch"));
    assertThatCode(() -> new KafkaConsumer<byte[], byte[]>(config).close()).doesNotThrowAnyException();
    assertThatThrownBy(() -> source().property("max.poll.records", placeholder("zero")).build())
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("max.poll.records")
        .hasMessageContaining(placeholder("zero"));
  }

  /**
   * The jobs' sink properties take placeholders; buffer.memory as one sets the jobs' record limit once resolved (a
   * buffer.memory below max.request.size lowers it: the producer refuses a record larger than its buffer).
   */
  @Test
  void jobSinkPropertiesTakePlaceholders() {
    KafkaJobOptions options = new KafkaJobOptions(Duration.ZERO, Duration.ZERO);
    options.sinkProperty("config.providers", "file");
    options.sinkProperty("config.providers.file.class", FileConfigProvider.class.getName());
    options.sinkProperty("linger.ms", placeholder("linger"));
    options.sinkProperty("buffer.memory", placeholder("buffer"));
    assertThatCode(() -> sinkAll(options.sinkProperties())).doesNotThrowAnyException();
    assertThat(JsonTopics.maxValueBytes(options.sinkProperties())).isEqualTo(JsonTopics.maxValueBytes());
    options.sinkProperty("buffer.memory", placeholder("smallBuffer"));
    assertThatCode(() -> sinkAll(options.sinkProperties())).doesNotThrowAnyException();
    assertThat(JsonTopics.maxValueBytes(options.sinkProperties()))
        .isEqualTo(524_288 - ExactlyOnceSink.RECORD_OVERHEAD);
  }

  /**
   * max.request.size and buffer.memory feed the jobs' record-size checks (output records, dead letters), so a
   * placeholder for either that cannot be resolved where the job is built (here: a FileConfigProvider file missing)
   * cannot be left to the producer as other properties are. The size helpers threw a bare IllegalStateException; they
   * now refuse it as a configuration error naming the property, why its value is needed and how to fix it.
   */
  @Test
  void sizePlaceholdersThatCannotBeResolvedHereAreRefusedAtBuild() {
    String missing = "${file:" + folder.resolve("only-on-the-task-managers.properties") + ":size}";
    for (String key : new String[] {"max.request.size", "buffer.memory"}) {
      ExactlyOnceSink.Builder<String> sink = sink().property(key, missing);
      assertThatThrownBy(sink::maxValueBytes).isInstanceOf(IllegalArgumentException.class)
          .hasMessageStartingWith(key + " (" + missing + ")")
          .hasMessageContaining("record-size checks need its value where the job is built")
          .hasMessageContaining("give the number").hasMessageContaining("resolvable where the job is built");
      Map<String, String> properties = Map.of("config.providers", "file",
          "config.providers.file.class", FileConfigProvider.class.getName(), key, missing);
      assertThatThrownBy(() -> JsonTopics.maxValueBytes(properties)).isInstanceOf(IllegalArgumentException.class)
          .hasMessageStartingWith(key + " (" + missing + ")");
    }
    ExactlyOnceSink.Builder<String> sink = sink().property("max.request.size", missing);
    assertThatThrownBy(sink::maxRequestSize).isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("max.request.size (");
    assertThat(sink.bufferMemory()).isEqualTo(32L << 20); // the other one is known: Kafka's default
    sink = sink().property("buffer.memory", missing);
    assertThatThrownBy(sink::bufferMemory).isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("buffer.memory (");
    assertThat(sink.maxRequestSize()).isEqualTo(1 << 20);
  }

  private static void sinkAll(Map<String, String> producerProperties) {
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
    env.enableCheckpointing(10_000);
    new JsonTopics().add("out", env.fromData(new byte[] {'{', '}'}),
            element -> element, "records")
        .sinkAll("127.0.0.1:1", "job", null, Duration.ofMinutes(10), producerProperties);
  }
}
