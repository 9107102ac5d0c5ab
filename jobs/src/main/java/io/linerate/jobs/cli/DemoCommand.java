package io.linerate.jobs.cli;

import io.linerate.jobs.feed.PcapReplay;
import io.linerate.jobs.feed.SyntheticTraffic;
import io.linerate.jobs.dedup.DedupJob;
import io.linerate.jobs.flowmeter.FlowMeterJob;
import io.linerate.jobs.heavyhitters.HeavyHittersJob;
import io.linerate.jobs.local.Demo;
import io.linerate.jobs.local.Feeder;
import io.linerate.jobs.local.JobLauncher;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code linerate demo}: everything on this machine, nothing to install. Starts a Kafka broker (KRaft, loopback
 * ports, temporary folder), creates the topics, starts a local Flink cluster (REST and web UI on a printed loopback
 * port), runs the heavy-hitters job fed with synthetic packet traffic (Zipf flows with a heavy hitter injected
 * after a while) or with the packets of the captures named by {@code --pcap}, prints a refreshing top-k table per
 * observation point, and on Ctrl-C or after {@code --duration} stops everything in reverse order and removes what
 * it created.
 */
@Command(name = "demo", mixinStandardHelpOptions = true, versionProvider = Main.ManifestVersion.class,
    sortOptions = false, usageHelpAutoWidth = true,
    description = {
        "Runs a Kafka broker, a local Flink cluster and a job (--job; the heavy-hitters job by default) on this "
            + "machine, feeds it synthetic traffic (or --pcap captures) and prints a refreshing top-k table; stops and "
            + "removes everything on Ctrl-C or after --duration."})
public final class DemoCommand implements Callable<Integer> {

  @Spec
  private CommandSpec spec;

  @Mixin
  private FlinkOptions flink;

  /** The jobs the demo can run. */
  enum DemoJob { HEAVY_HITTERS, FLOW_METER, DEDUP }

  @Option(names = "--job", paramLabel = "JOB", defaultValue = "HEAVY_HITTERS",
      description = "The job: HEAVY_HITTERS (packets, live top-k table), FLOW_METER (packets to flow records) or "
          + "DEDUP (synthetic JSON events with 10%% duplicates; --pcap does not apply) (default: ${DEFAULT-VALUE})")
  private DemoJob jobChoice = DemoJob.HEAVY_HITTERS;

  private Duration duration = Duration.ZERO;
  private int rate = 20_000;
  private int partitions = 2;
  private Duration window = Duration.ofSeconds(10);
  private int topK = 10;
  private double heavyHitter = 0.2;
  private Duration injectAfter = Duration.ofSeconds(20);
  private final List<Path> pcaps = new ArrayList<>();

  @Option(names = "--duration", paramLabel = "DURATION", defaultValue = "0s", converter = DurationConverter.class,
      description = "How long the job runs once started, e.g. 30s, 5m; 0s: until Ctrl-C (default: ${DEFAULT-VALUE})")
  void duration(Duration value) {
    if (value.isNegative()) {
      throw new ParameterException(spec.commandLine(), "--duration must be >= 0s, got " + value);
    }
    duration = value;
  }

  @Option(names = "--rate", paramLabel = "PACKETS_PER_SECOND", defaultValue = "20000",
      description = "Packets the feeder writes per second; synthetic event time runs at the same pace "
          + "(default: ${DEFAULT-VALUE})")
  void rate(int value) {
    if (value < 1 || value > 10_000_000) {
      throw new ParameterException(spec.commandLine(), "--rate must be in [1, 10000000], got " + value);
    }
    rate = value;
  }

  @Option(names = "--window", paramLabel = "DURATION", defaultValue = "10s", converter = DurationConverter.class,
      description = "Tumbling event-time window of the heavy-hitter reports (default: ${DEFAULT-VALUE})")
  void window(Duration value) {
    if (value.isNegative() || value.isZero()) {
      throw new ParameterException(spec.commandLine(), "--window must be > 0s, got " + value);
    }
    if (value.toNanos() % 1_000_000 != 0) { // the job's windows are in event-time milliseconds
      throw new ParameterException(spec.commandLine(), "--window must be a whole number of milliseconds, got "
          + value);
    }
    window = value;
  }

  @Option(names = "--top-k", paramLabel = "K", defaultValue = "10",
      description = "Flows listed per observation point and window (default: ${DEFAULT-VALUE})")
  void topK(int value) {
    if (value < 1 || value > 1000) {
      throw new ParameterException(spec.commandLine(), "--top-k must be in [1, 1000], got " + value);
    }
    topK = value;
  }

  @Option(names = "--heavy-hitter", paramLabel = "SHARE", defaultValue = "0.2",
      description = "Share of the synthetic packets one injected flow carries from --inject-after on; 0: none "
          + "(default: ${DEFAULT-VALUE})")
  void heavyHitter(double value) {
    if (!(value >= 0 && value < 1)) {
      throw new ParameterException(spec.commandLine(), "--heavy-hitter must be in [0, 1), got " + value);
    }
    heavyHitter = value;
  }

  @Option(names = "--inject-after", paramLabel = "DURATION", defaultValue = "20s",
      converter = DurationConverter.class,
      description = "Event time after which the heavy hitter starts (default: ${DEFAULT-VALUE})")
  void injectAfter(Duration value) {
    if (value.isNegative()) {
      throw new ParameterException(spec.commandLine(), "--inject-after must be >= 0s, got " + value);
    }
    injectAfter = value;
  }

  @Option(names = "--pcap", paramLabel = "FILE",
      description = "Replay these pcap/pcapng captures, plain or gzip-compressed (in a loop, at --rate) instead of "
          + "synthetic traffic; repeatable (default: none)")
  void pcap(Path file) {
    if (!Files.isRegularFile(file) || !Files.isReadable(file)) {
      throw new ParameterException(spec.commandLine(), "--pcap must be a readable capture file, got " + file
          + (Files.isDirectory(file) ? " (a directory)" : Files.exists(file) ? " (not readable or not a regular file)"
          : " (no such file)"));
    }
    pcaps.add(file);
  }

  @Option(names = "--partitions", paramLabel = "N", defaultValue = "2",
      description = "Partitions of each topic the demo creates (default: ${DEFAULT-VALUE})")
  void partitions(int value) {
    if (value < 1 || value > 64) {
      throw new ParameterException(spec.commandLine(), "--partitions must be in [1, 64], got " + value);
    }
    partitions = value;
  }

  @Override
  public Integer call() {
    flink.validate();
    if (jobChoice == DemoJob.DEDUP && !pcaps.isEmpty()) {
      throw new ParameterException(spec.commandLine(), "--pcap: the dedup demo reads JSON events, not packets");
    }
    Demo.Result result = Demo.builder(job(), feeder())
        .flinkConfiguration(flink.configuration())
        .slots(flink.parallelism())
        .partitions(partitions)
        .duration(duration)
        .out(System.out)
        .build()
        .run();
    return result.succeeded() ? 0 : 1;
  }

  private JobLauncher job() {
    switch (jobChoice) {
      case FLOW_METER:
        return FlowMeterJob.builder().capacity(100_000).idleTimeout(Duration.ofSeconds(10))
            .transactionTimeout(flink.transactionTimeout()).jobName(flink.jobName()).build();
      case DEDUP:
        // the generator's events: key "id", scope "tenant", time "ts"; sized for every event being new
        return DedupJob.builder().scopeField("tenant").timestampField("ts").horizon(Duration.ofMinutes(1))
            .expectedRate(rate).transactionTimeout(flink.transactionTimeout()).jobName(flink.jobName()).build();
      default:
        return HeavyHittersJob.builder()
            .window(window)
            .topK(topK)
            .alertsTopic("") // the demo's three topics: alerts share the reports topic
            .transactionTimeout(flink.transactionTimeout())
            .jobName(flink.jobName())
            .build();
    }
  }

  private Feeder feeder() {
    if (!pcaps.isEmpty()) {
      return PcapReplay.builder(pcaps).rate(rate).loops(0).build();
    }
    return SyntheticTraffic.builder()
        .format(jobChoice == DemoJob.DEDUP ? SyntheticTraffic.Format.EVENTS : SyntheticTraffic.Format.PACKETS)
        .count(0)
        .rate(rate)
        // a batch is sent when its last packet is due: about ten a second, so a low --rate still flows
        .batchSize(Math.max(1, Math.min(1000, rate / 10)))
        .eventRate(rate)
        .start(System.currentTimeMillis())
        .heavyHitterShare(heavyHitter)
        .injectAfter(injectAfter)
        .build();
  }
}
