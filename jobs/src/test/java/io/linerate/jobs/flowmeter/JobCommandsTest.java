package io.linerate.jobs.flowmeter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import java.util.List;

import io.linerate.jobs.cli.Main;
import io.linerate.jobs.dedup.DedupJob;
import io.linerate.jobs.local.JobTopics;
import io.linerate.sketches.flowtable.FlowKeyFormat;
import io.linerate.sketches.flowtable.OverflowPolicy;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import picocli.CommandLine;

/**
 * The {@code flow-meter} and {@code dedup} sub-commands without a broker: registered in {@code linerate}, every
 * option listed in {@code --help} with its default, bad values rejected before anything runs with a message naming
 * the option; the job builders fail naming the parameter.
 */
@org.junit.jupiter.api.Timeout(60)
class JobCommandsTest {

  private record Run(int exitCode, String out, String err) {}

  private static Run run(String... args) {
    CommandLine cl = Main.commandLine();
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    cl.setOut(new PrintWriter(out));
    cl.setErr(new PrintWriter(err));
    return new Run(cl.execute(args), out.toString(), err.toString());
  }

  @Test
  void bothCommandsAreRegistered() {
    assertThat(Main.commandLine().getSubcommands()).containsKeys("flow-meter", "dedup");
  }

  @Test
  void flowMeterHelpListsEveryOptionWithItsDefault() {
    Run help = run("flow-meter", "--help");
    assertThat(help.exitCode()).isZero();
    for (String option : List.of("--capacity", "--memory-budget", "--idle-timeout", "--active-timeout", "--tick",
        "--scheme", "--overflow", "--stash", "--state-cache", "--key-format", "--seed", "--out-of-orderness", "--idleness", "--bounded",
        "--bootstrap-servers", "--input-topic", "--output-topic", "--dead-letter-topic", "--parallelism",
        "--checkpoint-interval", "--state-backend", "--checkpoint-dir")) {
      assertThat(help.out()).contains(option);
    }
    assertThat(help.out()).contains("default: 100000").contains("default: 15s").contains("default: second-chance")
        .contains("default: evict-least-recent").contains("default: 64)").contains("default: 64m")
        .contains("flink run linerate-jobs-<version>.jar flow-meter");
  }

  @Test
  void dedupHelpListsEveryOptionWithItsDefault() {
    Run help = run("dedup", "--help");
    assertThat(help.exitCode()).isZero();
    for (String option : List.of("--key-field", "--weight-field", "--timestamp-field", "--epoch-unit",
        "--scope-field", "--scope", "--horizon", "--expected-rate", "--fpp", "--generations", "--seed", "--state-cache",
        "--duplicates-topic", "--output-format", "--out-of-orderness", "--idleness", "--bounded",
        "--bootstrap-servers", "--input-topic", "--output-topic", "--dead-letter-topic", "--parallelism")) {
      assertThat(help.out()).contains(option);
    }
    assertThat(help.out()).contains("default: 10m").contains("default: 0.001").contains("default: duplicates");
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      "flow-meter --capacity 0|--capacity must be in [1, 268435456]",
      "flow-meter --memory-budget lots|--memory-budget must be a number of bytes",
      "flow-meter --memory-budget 10|--memory-budget: memoryBudget of 10 bytes is below one flow's table",
      "flow-meter --idle-timeout 0s|--idle-timeout must be >= 1ms",
      "flow-meter --tick 5|'5' is not a duration",
      "flow-meter --scheme cuckoo|--scheme must be one of standard, conservative, second-chance",
      "flow-meter --key-format ipv5|--key-format must be one of ipv4-only, ipv4-and-ipv6",
      "flow-meter --overflow drop|--overflow must be one of evict-least-recent, export-new, got 'drop'",
      "flow-meter --stash 65537|--stash must be in [0, 65536] entries, got 65537",
      "flow-meter --stash -1|--stash must be in [0, 65536] entries, got -1",
      "flow-meter --state-cache lots|--state-cache must be a number of bytes >= 0",
      "flow-meter --seed 0xZZ|--seed must be a 64-bit integer",
      "flow-meter --idleness PT-1S|--idleness must be >= 0s",
      "dedup --fpp 1|--fpp must be in (0, 1)",
      "dedup --expected-rate 0|--expected-rate must be > 0",
      "dedup --generations 1|--generations must be in [2, 64]",
      "dedup --horizon 0s|--horizon must be >= 1ms",
      "dedup --epoch-unit us|--epoch-unit must be ms or s",
      "dedup --key-field a..b|--key-field: keyField has an empty part",
      "dedup --scope-field a..b|--scope-field: scopeField has an empty part",
      "dedup --output-format raw --duplicates-topic reports|--output-format raw needs a --duplicates-topic",
      "dedup --output-format xml|--output-format must be one of envelope, raw",
      "dedup --duplicates-topic a/b|--duplicates-topic must be a Kafka topic name",
      "flow-meter --kafka-property isolation.level=read_uncommitted|--kafka-property: isolation.level is "
          + "read_committed for exactly-once input and cannot be changed",
      "flow-meter --kafka-property bootstrap.servers=k:9092|--kafka-property: bootstrap.servers has its own option: "
          + "use --bootstrap-servers",
      "dedup --consumer-property group.id=mine|--consumer-property: group.id is the job's: its consumer group is "
          + "linerate-JOB, or linerate-JOB.NAME with --job-name NAME",
      "heavy-hitters --producer-property transactional.id=t|--producer-property: transactional.id is the job's",
      "heavy-hitters --kafka-property transaction.timeout.ms=60000|--kafka-property: transaction.timeout.ms has its "
          + "own option: use --transaction-timeout",
      "dedup --kafka-property auto.offset.reset=latest|--kafka-property: auto.offset.reset is set by Flink's Kafka "
          + "source",
      "flow-meter --producer-property acks=1|--producer-property: acks must be all (or -1) for the exactly-once sink",
      "flow-meter --consumer-property fetch.max.bytes=lots|--consumer-property: fetch.max.bytes is not a value "
          + "Kafka's consumer takes",
      "flow-meter --consumer-property linger.ms=5|--consumer-property: linger.ms is a setting of the producer, not "
          + "of the consumer (which would ignore it): use --producer-property",
      "dedup --producer-property fetch.min.bytes=1024|--producer-property: fetch.min.bytes is a setting of the "
          + "consumer, not of the producer (which would ignore it): use --consumer-property",
      "heavy-hitters --producer-property partition.discovery.interval.ms=0|--producer-property: "
          + "partition.discovery.interval.ms is a setting of the consumer, not of the producer",
      "generate --producer-property max.poll.records=10|--producer-property: max.poll.records is a setting of the "
          + "consumer, not of the producer (which would ignore it)",
      "flow-meter --kafka-property security.protocol:SASL_SSL|--kafka-property must be KEY=VALUE, got an argument "
          + "without '='",
      "dedup --consumer-property =1|--consumer-property must be KEY=VALUE with a key before the '='",
      "flow-meter --consumer-property partition.discovery.interval.ms=${env:X}|--consumer-property: "
          + "partition.discovery.interval.ms is read by Flink's Kafka source itself, which does not resolve "
          + "config-provider placeholders",
      "flow-meter --consumer-property register.consumer.metrics=yes|--consumer-property: register.consumer.metrics "
          + "must be true or false",
      "flow-meter --kafka-config /nonexistent/linerate/client.properties|--kafka-config: cannot read "
          + "/nonexistent/linerate/client.properties: no such file",
      "flow-meter --max-dead-letter-bytes -1|--max-dead-letter-bytes must be a number of bytes >= 0",
      "flow-meter --max-dead-letter-bytes 1m|--max-dead-letter-bytes: maxDeadLetterBytes 1048576 is too large: a "
          + "dead letter keeping that many bytes",
      "heavy-hitters --max-dead-letter-bytes 1g|--max-dead-letter-bytes must be at most",
      "dedup --max-dead-letter-bytes 300k --producer-property max.request.size=2097152|--max-dead-letter-bytes: "
          + "maxDeadLetterBytes 307200 is too large",
      "generate --consumer-property fetch.max.bytes=1|Unknown options: '--consumer-property'",
      "generate --max-dead-letter-bytes 1|Unknown options: '--max-dead-letter-bytes'",
      "generate --batch-size 20000 --producer-property max.request.size=500000|--batch-size 20000: a batch of that "
          + "many packets may be a record of 940036 bytes, more than the producer takes",
      "replay --batch-size 12000 --kafka-property buffer.memory=400000 x.pcap|--batch-size 12000: a batch of that "
          + "many packets may be a record of 564036 bytes, more than the producer takes",
      "generate --producer-property transactional.id=t|--producer-property: transactional.id is the feeder's own",
      "replay --kafka-property enable.idempotence=false x.pcap|--kafka-property: enable.idempotence is the "
          + "feeder's own"})
  void badValuesFailNamingTheOption(String args, String message) {
    Run r = run(args.split(" "));
    assertThat(r.exitCode()).as(r.err()).isEqualTo(2);
    assertThat(r.err()).contains(message);
  }

  /**
   * The client options reach every Kafka client the job defines: security settings (--kafka-config, then
   * --kafka-property, which wins) the source's consumer, every sink's producer and the bounded source's admin
   * client; --consumer-property and --producer-property only theirs, winning over both; a property a client does
   * not know stays out of it. Read from the job graph the command defines.
   */
  @Test
  void clientOptionsReachEveryClientOfTheJob(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir)
      throws Exception {
    java.nio.file.Path file = dir.resolve("client.properties");
    java.nio.file.Files.writeString(file, "security.protocol=SASL_SSL\nsasl.mechanism=SCRAM-SHA-512\n"
        + "sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required username=\"u\" "
        + "password=\"p\";\nlinger.ms=40\n");
    for (String command : new String[] {"flow-meter", "heavy-hitters", "dedup"}) {
      CommandLine cl = Main.commandLine();
      CommandLine.ParseResult parsed = cl.parseArgs(new String[] {command,
          "--kafka-config", file.toString(), "--kafka-property", "sasl.mechanism=PLAIN",
          "--kafka-property", "ssl.truststore.location=/etc/kafka/truststore.jks",
          "--consumer-property", "fetch.max.bytes=1048576", "--consumer-property", "partition.discovery.interval.ms=0",
          "--producer-property", "compression.type=zstd", "--producer-property", "linger.ms=60",
          "--max-dead-letter-bytes", "2k", "--bounded"});
      Object cmd = parsed.subcommand().commandSpec().userObject();
      java.lang.reflect.Method jobOf = cmd.getClass().getDeclaredMethod("job");
      jobOf.setAccessible(true);
      io.linerate.jobs.local.JobLauncher job = (io.linerate.jobs.local.JobLauncher) jobOf.invoke(cmd);
      StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
      env.enableCheckpointing(10_000);
      job.define(env, new JobTopics("k:9092", "in", "out", "dead"));
      GraphClients clients = GraphClients.of(env);
      assertThat(clients.consumers).as(command).hasSize(1);
      java.util.Properties consumer = clients.consumers.get(0);
      assertThat(consumer.getProperty("security.protocol")).isEqualTo("SASL_SSL");
      assertThat(consumer.getProperty("sasl.mechanism")).isEqualTo("PLAIN");
      assertThat(consumer.getProperty("sasl.jaas.config")).contains("ScramLoginModule");
      assertThat(consumer.getProperty("ssl.truststore.location")).isEqualTo("/etc/kafka/truststore.jks");
      assertThat(consumer.getProperty("fetch.max.bytes")).isEqualTo("1048576");
      assertThat(consumer.getProperty("isolation.level")).isEqualTo("read_committed");
      assertThat(consumer).doesNotContainKeys("linger.ms", "compression.type");
      assertThat(clients.producers).as(command).hasSizeGreaterThanOrEqualTo(2);
      for (java.util.Properties producer : clients.producers) {
        assertThat(producer.getProperty("security.protocol")).isEqualTo("SASL_SSL");
        assertThat(producer.getProperty("sasl.mechanism")).isEqualTo("PLAIN");
        assertThat(producer.getProperty("sasl.jaas.config")).contains("ScramLoginModule");
        assertThat(producer.getProperty("compression.type")).isEqualTo("zstd");
        assertThat(producer.getProperty("linger.ms")).isEqualTo("60");
        assertThat(producer).doesNotContainKeys("fetch.max.bytes", "partition.discovery.interval.ms");
      }
      assertThat(clients.admins).as(command).hasSize(1);
      assertThat(clients.admins.get(0)).containsEntry("security.protocol", "SASL_SSL")
          .containsEntry("sasl.mechanism", "PLAIN").containsEntry("bootstrap.servers", "k:9092")
          .containsKey("sasl.jaas.config").doesNotContainKeys("fetch.max.bytes", "linger.ms", "compression.type");
      assertThat(clients.maxDeadLetterBytes).as(command).containsOnly(2048);
    }
  }

  /** The Kafka clients of a job graph: its sources' consumer properties and admin clients, its sinks' producers. */
  static final class GraphClients {
    final List<java.util.Properties> consumers = new java.util.ArrayList<>();
    final List<java.util.Properties> producers = new java.util.ArrayList<>();
    final List<java.util.Map<String, Object>> admins = new java.util.ArrayList<>();
    final java.util.Set<Integer> maxDeadLetterBytes = new java.util.HashSet<>();

    static GraphClients of(StreamExecutionEnvironment env) throws Exception {
      GraphClients c = new GraphClients();
      java.util.Set<org.apache.flink.api.dag.Transformation<?>> all = new java.util.LinkedHashSet<>();
      for (org.apache.flink.api.dag.Transformation<?> t : env.getTransformations()) {
        all.addAll(t.getTransitivePredecessors());
      }
      for (org.apache.flink.api.dag.Transformation<?> t : all) {
        if (t instanceof org.apache.flink.streaming.api.transformations.SourceTransformation<?, ?, ?> s
            && s.getSource() instanceof org.apache.flink.connector.kafka.source.KafkaSource<?> source) {
          c.consumers.add((java.util.Properties) field(source, "props"));
          Object stop = field(source, "stoppingOffsetsInitializer");
          java.lang.reflect.Method admin = stop.getClass().getDeclaredMethod("adminConfig");
          admin.setAccessible(true);
          @SuppressWarnings("unchecked")
          java.util.Map<String, Object> config = (java.util.Map<String, Object>) admin.invoke(stop);
          c.admins.add(config);
          Object decoding = field(source, "deserializationSchema");
          if (decoding instanceof io.linerate.jobs.format.KafkaDecoding<?> d) {
            c.maxDeadLetterBytes.add(d.maxDeadLetterBytes());
          }
        } else if (t instanceof org.apache.flink.streaming.api.transformations.SinkTransformation<?, ?> s
            && s.getSink() instanceof org.apache.flink.connector.kafka.sink.KafkaSink<?> sink) {
          java.lang.reflect.Method config = org.apache.flink.connector.kafka.sink.KafkaSink.class
              .getDeclaredMethod("getKafkaProducerConfig");
          config.setAccessible(true);
          java.util.Properties producer = new java.util.Properties();
          producer.putAll((java.util.Properties) config.invoke(sink));
          c.producers.add(producer);
        }
      }
      return c;
    }

    private static Object field(Object target, String name) throws Exception {
      java.lang.reflect.Field f = target.getClass().getDeclaredField(name);
      f.setAccessible(true);
      return f.get(target);
    }
  }

  /** The feeders' producer gets the common properties and --producer-property, which wins; nothing else. */
  @Test
  void feederProducersGetTheClientProperties(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir)
      throws Exception {
    java.nio.file.Path file = dir.resolve("client.properties");
    java.nio.file.Files.writeString(file, "security.protocol=SASL_SSL\nlinger.ms=40\nfetch.max.bytes=1\n");
    CommandLine.ParseResult parsed = Main.commandLine().parseArgs("generate", "--kafka-config", file.toString(),
        "--kafka-property", "sasl.mechanism=PLAIN", "--producer-property", "linger.ms=5");
    Object cmd = parsed.subcommand().commandSpec().userObject();
    java.lang.reflect.Field kafka = cmd.getClass().getDeclaredField("kafka");
    kafka.setAccessible(true);
    assertThat(((io.linerate.jobs.cli.KafkaOptions) kafka.get(cmd)).feederProducerProperties()).containsExactly(
        java.util.Map.entry("linger.ms", "5"), java.util.Map.entry("security.protocol", "SASL_SSL"),
        java.util.Map.entry("sasl.mechanism", "PLAIN"));
    // the producer is given them: SASL without a JAAS configuration fails its construction, before any connection
    Run r = run("generate", "--bootstrap-servers", "127.0.0.1:1", "--count", "1", "--kafka-property",
        "security.protocol=SASL_PLAINTEXT", "--kafka-property", "sasl.mechanism=PLAIN");
    assertThat(r.exitCode()).as(r.err()).isEqualTo(1);
    assertThat(r.err()).contains("generate: failed: Failed to construct kafka producer");
  }

  /** No error shows a secret: neither the argument without '=' nor a value of a secret key. */
  @Test
  void errorsNeverShowASecret() {
    Run noEquals = run("flow-meter", "--kafka-property", "sasl.jaas.config:topsecret");
    assertThat(noEquals.exitCode()).isEqualTo(2);
    assertThat(noEquals.err()).contains("--kafka-property must be KEY=VALUE").doesNotContain("topsecret");
    Run unresolvable = run("flow-meter", "--kafka-property", "ssl.key.password=${env:LINERATE_TEST_UNSET}x1");
    assertThat(unresolvable.exitCode()).isEqualTo(2);
    assertThat(unresolvable.err()).contains("ssl.key.password is a config provider placeholder")
        .doesNotContain("x1");
  }

  @Test
  void buildersFailNamingTheParameter() {
    // neither capacity nor memoryBudget: the command's default, not an error
    assertThat(FlowMeterJob.builder().build().meter().capacity()).isEqualTo(FlowMeterJob.Builder.DEFAULT_CAPACITY)
        .isEqualTo(100_000L);
    assertThat(org.assertj.core.api.Assertions.catchThrowable(() -> FlowMeterJob.builder().capacity(0).build()))
        .hasMessageContaining("capacity");
    assertThat(org.assertj.core.api.Assertions.catchThrowable(() -> FlowMeterJob.builder().capacity(10)
        .outOfOrderness(Duration.ofSeconds(-1)))).hasMessageContaining("outOfOrderness must be >= 0");
    assertThat(org.assertj.core.api.Assertions.catchThrowable(() -> DedupJob.builder().timestampField(null).build()))
        .hasMessageContaining("timestampField must be set");
    assertThat(org.assertj.core.api.Assertions.catchThrowable(() -> DedupJob.builder().fpp(2).build()))
        .hasMessageContaining("fpp must be in (0, 1)");
    DedupJob raw = DedupJob.builder().outputFormat(DedupJob.OutputFormat.RAW).build();
    assertThat(org.assertj.core.api.Assertions.catchThrowable(() -> raw.define(
        StreamExecutionEnvironment.getExecutionEnvironment(), new JobTopics("localhost:9092", "in", "out", "dead"))))
        .hasMessageContaining("outputFormat RAW needs a duplicatesTopic");
  }

  /** --transaction-timeout reaches the flow-meter job's sinks: a 12 min interval passes their check. */
  @Test
  void theTransactionTimeoutReachesTheSinks() {
    FlowMeterCommand flows = new FlowMeterCommand();
    new CommandLine(flows).parseArgs("--checkpoint-interval", "12m", "--transaction-timeout", "15m");
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
    env.enableCheckpointing(Duration.ofMinutes(12).toMillis());
    flows.job().define(env, flows.topics());
  }

  /**
   * --job-name names the job, its consumer group and its transactional ids (all through {@code name()}), so two
   * instances of one job can share a broker; a name Kafka ids should not hold is refused when parsed.
   */
  @Test
  void theJobNameReachesTheJobs() {
    FlowMeterCommand flows = new FlowMeterCommand();
    new CommandLine(flows).parseArgs("--job-name", "edge-7_flows");
    assertThat(flows.job().name()).isEqualTo("edge-7_flows");
    FlowMeterCommand unnamed = new FlowMeterCommand();
    new CommandLine(unnamed).parseArgs();
    assertThat(unnamed.job().name()).isEqualTo(FlowMeterJob.NAME);
    io.linerate.jobs.heavyhitters.HeavyHittersCommand hh = new io.linerate.jobs.heavyhitters.HeavyHittersCommand();
    new CommandLine(hh).parseArgs("--job-name", "hh-east");
    assertThat(hh.job().name()).isEqualTo("hh-east");
    for (String command : new String[] {"flow-meter", "heavy-hitters", "dedup"}) {
      for (String bad : new String[] {"a b", "x".repeat(101), "é", "flows/1", "a.b"}) {
        Run r = run(command, "--job-name", bad);
        assertThat(r.exitCode()).as(command + " " + bad).isEqualTo(2);
        assertThat(r.err()).as(command + " " + bad).startsWith("--job-name must be 1 to 100 letters");
      }
    }
    assertThat(org.assertj.core.api.Assertions.catchThrowable(() -> FlowMeterJob.builder().jobName("a b")))
        .hasMessage("jobName must be 1 to 100 letters, digits, '_' or '-', got 'a b'");
  }

  /**
   * A job's Kafka identity: unnamed, what earlier versions used (a restored job finds its lingering transactions);
   * named, the kind and the name, so neither two instances of one job nor two kinds of job under one name share a
   * consumer group or a transactional id prefix, whatever their topics.
   */
  @Test
  void namedJobsNeverShareAConsumerGroupOrATransactionalIdPrefix() {
    io.linerate.jobs.kafka.KafkaJobOptions unnamed = new io.linerate.jobs.kafka.KafkaJobOptions(Duration.ZERO,
        Duration.ZERO);
    assertThat(unnamed.kafkaName(FlowMeterJob.NAME)).isEqualTo("flow-meter");
    assertThat(io.linerate.jobs.kafka.JsonTopics.transactionalIdPrefix("flow-meter", null, "reports"))
        .isEqualTo("linerate-flow-meter-reports");
    java.util.Set<String> groups = new java.util.HashSet<>();
    java.util.Set<String> prefixes = new java.util.HashSet<>();
    int pairs = 0;
    for (String kind : new String[] {FlowMeterJob.NAME, "heavy-hitters", DedupJob.NAME}) {
      for (String name : new String[] {"site1", "a", "a-b", "b"}) {
        io.linerate.jobs.kafka.KafkaJobOptions named = new io.linerate.jobs.kafka.KafkaJobOptions(Duration.ZERO,
            Duration.ZERO);
        named.jobName(name);
        assertThat(groups.add(named.kafkaName(kind))).as(kind + " " + name).isTrue();
        for (String topic : new String[] {"reports", "b-reports", "dead-letters", "a.b"}) {
          prefixes.add(io.linerate.jobs.kafka.JsonTopics.transactionalIdPrefix(kind, name, topic));
          pairs++;
        }
      }
    }
    assertThat(prefixes).hasSize(pairs);
    assertThat(io.linerate.jobs.kafka.JsonTopics.transactionalIdPrefix("flow-meter", "site1", "reports"))
        .isEqualTo("linerate-flow-meter.site1.reports");
  }

  /** --scheme, --overflow, --stash and --state-cache reach the meter; the defaults are the meter's. */
  @Test
  void tableOptionsReachTheMeter() {
    FlowMeterCommand defaults = new FlowMeterCommand();
    new CommandLine(defaults).parseArgs();
    assertThat(defaults.job().meter().overflow()).isEqualTo(OverflowPolicy.EVICT_LEAST_RECENT);
    assertThat(defaults.job().meter().stashCapacity()).isEqualTo(64);
    assertThat(defaults.job().meter().cachedScopes())
        .isEqualTo((64L << 20) / defaults.job().meter().tableBytes()).isPositive();
    FlowMeterCommand uncached = new FlowMeterCommand();
    new CommandLine(uncached).parseArgs("--state-cache", "0");
    assertThat(uncached.job().meter().cachedScopes()).isZero();
    FlowMeterCommand set = new FlowMeterCommand();
    new CommandLine(set).parseArgs("--overflow", "export-new", "--stash", "1024", "--scheme", "second-chance-2",
        "--memory-budget", "1m");
    assertThat(set.job().meter().overflow()).isEqualTo(OverflowPolicy.EXPORT_NEW);
    assertThat(set.job().meter().stashCapacity()).isEqualTo(1024);
    // the budget holds the larger stash too: fewer flows fit than with the default stash
    FlowMeterCommand sameBudget = new FlowMeterCommand();
    new CommandLine(sameBudget).parseArgs("--scheme", "second-chance-2", "--memory-budget", "1m");
    assertThat(set.job().meter().capacity()).isLessThan(sameBudget.job().meter().capacity());
  }

  /**
   * --capacity with --memory-budget is refused naming both (the capacity was silently ignored); each alone reaches
   * the meter, and neither gives the default capacity.
   */
  @Test
  void flowMeterCapacityAndMemoryBudgetExcludeEachOther() {
    FlowMeterCommand both = new FlowMeterCommand();
    new CommandLine(both).parseArgs("--capacity", "5000", "--memory-budget", "1m");
    assertThatThrownBy(both::job).isInstanceOf(CommandLine.ParameterException.class)
        .hasMessage("set either --capacity or --memory-budget, not both: the budget chooses the capacity (got "
            + "--capacity 5000 and --memory-budget 1048576)");
    FlowMeterCommand capacity = new FlowMeterCommand();
    new CommandLine(capacity).parseArgs("--capacity", "5000");
    assertThat(capacity.job().meter().capacity()).isEqualTo(5000);
    FlowMeterCommand budget = new FlowMeterCommand();
    new CommandLine(budget).parseArgs("--memory-budget", "1m");
    assertThat(budget.job().meter().capacity()).isBetween(1_000L, 30_000L);
    FlowMeterCommand neither = new FlowMeterCommand();
    new CommandLine(neither).parseArgs();
    assertThat(neither.job().meter().capacity()).isEqualTo(FlowMeterJob.Builder.DEFAULT_CAPACITY);
  }

  /**
   * A builder built once without capacity or budget (so with the default capacity) takes a budget afterwards: the
   * default used to stay in it and the next build failed as if both had been set.
   */
  @Test
  void aBuilderBuiltWithTheDefaultCapacityTakesABudgetLater() {
    FlowMeterJob.Builder builder = FlowMeterJob.builder().keyFormat(FlowKeyFormat.IPV4_ONLY);
    assertThat(builder.build().meter().capacity()).isEqualTo(FlowMeterJob.Builder.DEFAULT_CAPACITY);
    FlowMeterJob budgeted = builder.memoryBudget(1L << 20).build();
    assertThat(budgeted.meter().capacity())
        .isEqualTo(FlowMeterJob.builder().keyFormat(FlowKeyFormat.IPV4_ONLY).memoryBudget(1L << 20).build().meter()
            .capacity()).isBetween(1_000L, 30_000L);
    assertThatThrownBy(() -> builder.capacity(5000).build()).isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("set either capacity(flows) or memoryBudget(bytes), not both");
    // a value out of range still fails in its setter
    assertThatThrownBy(() -> FlowMeterJob.builder().stashCapacity(-1))
        .hasMessage("stashCapacity must be in [0, 65536], got -1");
  }

  @Test
  void memoryBudgetResolvesToACapacity() {
    FlowMeterJob job = FlowMeterJob.builder().memoryBudget(1L << 20).keyFormat(FlowKeyFormat.IPV4_ONLY).build();
    assertThat(job.meter().capacity()).isBetween(1_000L, 30_000L);
    assertThat(job.name()).isEqualTo("flow-meter");
  }
}
