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
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.function.Function;
import picocli.CommandLine;
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

  /** Runs the built demo: {@link Demo#run()}; the tests check what happens before it without starting anything. */
  private final Function<Demo, Demo.Result> runner;

  public DemoCommand() {
    this(Demo::run);
  }

  DemoCommand(Function<Demo, Demo.Result> runner) {
    this.runner = runner;
  }

  @Mixin
  private FlinkOptions flink;

  /**
   * The jobs the demo can run, each named on the command line as the job commands are ({@link #cliName()}); the
   * constant's name in any case ({@code FLOW_METER}, {@code flow_meter}) is accepted too.
   */
  enum DemoJob {
    HEAVY_HITTERS("heavy-hitters"), FLOW_METER("flow-meter"), DEDUP("dedup");

    private final String cliName;

    DemoJob(String cliName) {
      this.cliName = cliName;
    }

    /** The job command's name, the spelling {@code --help} and the messages use: {@code flow-meter}. */
    String cliName() {
      return cliName;
    }

    @Override
    public String toString() {
      return cliName;
    }
  }

  /**
   * Reads {@code --job}: a job command's name ({@code flow-meter}) or the older constant name ({@code FLOW_METER}),
   * in any case, {@code _} and {@code -} alike; anything else is refused listing the accepted names.
   */
  static final class DemoJobConverter implements CommandLine.ITypeConverter<DemoJob> {
    @Override
    public DemoJob convert(String value) {
      String wanted = value.trim().toLowerCase(Locale.ROOT).replace('_', '-');
      for (DemoJob job : DemoJob.values()) {
        if (job.cliName().equals(wanted)) {
          return job;
        }
      }
      throw new CommandLine.TypeConversionException("'" + value + "' is not a job of the demo: use one of "
          + String.join(", ", Arrays.stream(DemoJob.values()).map(DemoJob::cliName).toList())
          + " (or HEAVY_HITTERS, FLOW_METER, DEDUP, in any case)");
    }
  }

  @Option(names = "--job", paramLabel = "JOB", defaultValue = "heavy-hitters", converter = DemoJobConverter.class,
      description = "The job: heavy-hitters (packets, live top-k table), flow-meter (packets to flow records) or "
          + "dedup (synthetic JSON events with 10%% duplicates; --pcap does not apply); HEAVY_HITTERS etc. also work "
          + "(default: ${DEFAULT-VALUE})")
  private DemoJob jobChoice = DemoJob.HEAVY_HITTERS;

  /** The job {@code --job} chose. */
  DemoJob jobChoice() {
    return jobChoice;
  }

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
      description = "Packets (events with --job dedup) the feeder writes per second; synthetic event time runs at "
          + "the same pace; --job dedup sizes each tenant's filters for its share of this rate (a quarter, with a "
          + "margin for chance) and refuses a rate whose filters would take more than half the heap "
          + "(default: ${DEFAULT-VALUE})")
  void rate(int value) {
    if (value < 1 || value > 10_000_000) {
      throw new ParameterException(spec.commandLine(), "--rate must be in [1, 10000000], got " + value);
    }
    rate = value;
  }

  @Option(names = "--window", paramLabel = "DURATION", defaultValue = "10s", converter = DurationConverter.class,
      description = "Tumbling event-time window of the heavy-hitter reports; --job heavy-hitters only "
          + "(default: ${DEFAULT-VALUE})")
  void window(Duration value) {
    if (value.isNegative() || value.isZero()) {
      throw new ParameterException(spec.commandLine(), "--window must be > 0s, got " + DurationConverter.format(value));
    }
    if (value.toNanos() % 1_000_000 != 0) { // the job's windows are in event-time milliseconds
      throw new ParameterException(spec.commandLine(), "--window must be a whole number of milliseconds, got "
          + value);
    }
    window = value;
  }

  @Option(names = "--top-k", paramLabel = "K", defaultValue = "10",
      description = "Flows listed per observation point and window; --job heavy-hitters only "
          + "(default: ${DEFAULT-VALUE})")
  void topK(int value) {
    if (value < 1 || value > 1000) {
      throw new ParameterException(spec.commandLine(), "--top-k must be in [1, 1000], got " + value);
    }
    topK = value;
  }

  @Option(names = "--heavy-hitter", paramLabel = "SHARE", defaultValue = "0.2",
      description = "Share of the synthetic packets one injected flow carries from --inject-after on; 0: none; "
          + "not with --pcap or --job dedup (default: ${DEFAULT-VALUE})")
  void heavyHitter(double value) {
    if (!(value >= 0 && value < 1)) {
      throw new ParameterException(spec.commandLine(), "--heavy-hitter must be in [0, 1), got " + value);
    }
    heavyHitter = value;
  }

  @Option(names = "--inject-after", paramLabel = "DURATION", defaultValue = "20s",
      converter = DurationConverter.class,
      description = "Event time after which the heavy hitter starts; not with --pcap, --job dedup or "
          + "--heavy-hitter 0 (default: ${DEFAULT-VALUE})")
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
          + PcapReplay.whyNotReadable(file));
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

  /** Tenants (dedup scopes) of the dedup demo's events: each keeps a Bloom filter ring of its own. */
  static final int DEDUP_TENANTS = 4;
  /**
   * The dedup demo's horizon: each tenant's filters hold its share of --rate keys per second
   * ({@link #dedupTenantRate}) for this long (and a generation more).
   */
  static final Duration DEDUP_HORIZON = Duration.ofMinutes(1);

  @Override
  public Integer call() {
    flink.validate();
    if (jobChoice == DemoJob.DEDUP && !pcaps.isEmpty()) {
      throw new ParameterException(spec.commandLine(), "--pcap: the dedup demo reads JSON events, not packets");
    }
    refuseOptionsNotUsed();
    JobLauncher job = job();
    if (job instanceof DedupJob dedup) {
      checkDedupMemory(dedup);
    }
    Demo.Result result = runner.apply(Demo.builder(job, feeder())
        .flinkConfiguration(flink.configuration())
        .slots(flink.parallelism())
        .partitions(partitions)
        .duration(duration)
        .out(System.out)
        .build());
    return result.succeeded() ? 0 : 1;
  }

  /**
   * An option given for what the chosen job or traffic does not have is refused, naming it: --window and --top-k
   * shape the heavy-hitters job only; --heavy-hitter and --inject-after the synthetic packets only (not a --pcap
   * replay, not the dedup demo's JSON events); --inject-after a heavy hitter only (not --heavy-hitter 0). Accepted
   * and ignored, they would mislead.
   */
  private void refuseOptionsNotUsed() {
    CommandLine.ParseResult given = spec.commandLine().getParseResult();
    if (given == null) {
      return;
    }
    if (jobChoice != DemoJob.HEAVY_HITTERS) {
      for (String option : new String[] {"--window", "--top-k"}) {
        if (given.hasMatchedOption(option)) {
          throw new ParameterException(spec.commandLine(), option + " does not apply to --job " + jobChoice
              + ": it sets the heavy-hitters job's reports (--job heavy-hitters); leave it out");
        }
      }
    }
    for (String option : new String[] {"--heavy-hitter", "--inject-after"}) {
      if (given.hasMatchedOption(option) && (jobChoice == DemoJob.DEDUP || !pcaps.isEmpty())) {
        throw new ParameterException(spec.commandLine(), option + " does not apply to "
            + (jobChoice == DemoJob.DEDUP ? "--job dedup (its traffic is JSON events)" : "a --pcap replay")
            + ": it shapes the synthetic packet traffic only; leave it out");
      }
    }
    if (given.hasMatchedOption("--inject-after") && heavyHitter == 0) {
      throw new ParameterException(spec.commandLine(), "--inject-after does not apply to --heavy-hitter 0: it says"
          + " when the heavy hitter starts, and there is none; leave it out or set --heavy-hitter above 0");
    }
  }

  /**
   * The heap the dedup demo may give its filters: half of this JVM's maximum heap, which also holds the broker,
   * the Flink cluster and the serialized copies of the state a checkpoint makes.
   */
  static long dedupMemoryLimit() {
    return Runtime.getRuntime().maxMemory() / 2;
  }

  /**
   * Refuses a --rate whose dedup filters would not fit the heap ({@link #dedupMemoryLimit()}) before anything is
   * started: the job sizes each tenant's filter ring for its share of --rate over {@link #DEDUP_HORIZON}
   * ({@link #dedupTenantRate}), about 0.5 GB per tenant at 10,000,000/s, and would otherwise fail out of memory
   * once the demo runs.
   */
  private void checkDedupMemory(DedupJob job) {
    long bytes = dedupBytes(job);
    long limit = dedupMemoryLimit();
    if (bytes <= limit) {
      return;
    }
    int low = 1;
    int high = rate; // the largest rate that fits: bytes grow with the rate
    while (low < high) {
      int mid = (int) (((long) low + high + 1) / 2);
      if (dedupBytes(dedupJob(mid)) <= limit) {
        low = mid;
      } else {
        high = mid - 1;
      }
    }
    throw new ParameterException(spec.commandLine(), String.format(Locale.ROOT, "--rate %d is too high for --job"
        + " dedup: the demo sizes a filter ring per tenant for its share of --rate (a quarter, with a margin) over"
        + " %s, and %d tenants x %,d bytes need %,d MiB of dedup filters, above the limit of %,d MiB (half the"
        + " maximum heap, -Xmx); use --rate %d or less, or a larger -Xmx", rate, DurationConverter.format(DEDUP_HORIZON),
        DEDUP_TENANTS, job.deduplicator().sizing().stateBytesPerKey(), bytes >> 20, limit >> 20, low));
  }

  /** The filters' bytes of the dedup demo's tenants, all generations allocated. */
  private static long dedupBytes(DedupJob job) {
    return DEDUP_TENANTS * job.deduplicator().sizing().stateBytesPerKey();
  }

  /** The dedup job of the demo at {@code rate} events per second: each tenant sized for {@link #dedupTenantRate}. */
  DedupJob dedupJob(int rate) {
    long span = dedupJobFor(1).deduplicator().sizing().spanMillis(); // the span depends on horizon and generations
    return dedupJobFor(dedupTenantRate(rate, span));
  }

  private DedupJob dedupJobFor(double keysPerSecondPerTenant) {
    // the generator's events: key "id", scope "tenant", time "ts"; sized for every event being new
    return DedupJob.builder().scopeField("tenant").timestampField("ts").horizon(DEDUP_HORIZON)
        .expectedRate(keysPerSecondPerTenant).transactionTimeout(flink.transactionTimeout()).jobName(flink.jobName())
        .build();
  }

  /** −ln of the probability that one tenant's events in one generation span exceed what its filter is sized for. */
  static final double DEDUP_OVERLOAD_LOG = Math.log(1e9);

  /**
   * The rate (keys per second) the dedup demo sizes each tenant's filters for, at {@code rate} events per second
   * and generation span S = {@code spanMillis}. A generation holds at most the distinct keys of its span, so at most
   * its tenant's events of the span. The generator gives each distinct key a tenant drawn uniformly from the
   * {@value #DEDUP_TENANTS} (a hash of the key's number; a duplicate repeats its key's tenant), so the tenants'
   * shares are equal and a tenant's events in a span of N = ⌈rate·S⌉ + 1 events are Binomial(N, 1/T), mean
   * μ = N/T, variance below μ. Bernstein's inequality, P(X ≥ μ + t) ≤ exp(−t² / (2(μ + t/3))), gives the margin
   * t = L/3 + √((L/3)² + 2μL) for probability e<sup>−L</sup>, L = {@link #DEDUP_OVERLOAD_LOG} (one in 10⁹ per tenant
   * and span); the result is min(μ + t, N)/S (a tenant never gets more than all of a span's events). That is about
   * rate/T plus 2% at the default rate (sizing every tenant for the whole rate, as before, took T times the memory),
   * a larger share at low rates, where chance weighs more, and up to the whole rate at the lowest. Every event is
   * counted as a possible new key (a repeat whose first occurrence is in an older generation is inserted again).
   */
  static double dedupTenantRate(int rate, long spanMillis) {
    double events = Math.ceil(rate * (spanMillis / 1000.0)) + 1;
    double mean = events / DEDUP_TENANTS;
    double third = DEDUP_OVERLOAD_LOG / 3;
    double margin = third + Math.sqrt(third * third + 2 * mean * DEDUP_OVERLOAD_LOG);
    return Math.min(mean + margin, events) * 1000.0 / spanMillis;
  }

  private JobLauncher job() {
    switch (jobChoice) {
      case FLOW_METER:
        return FlowMeterJob.builder().capacity(100_000).idleTimeout(Duration.ofSeconds(10))
            .transactionTimeout(flink.transactionTimeout()).jobName(flink.jobName()).build();
      case DEDUP:
        return dedupJob(rate);
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

  /** The demo's traffic: synthetic packets or events, or the captures. */
  Feeder feeder() {
    if (!pcaps.isEmpty()) {
      return PcapReplay.builder(pcaps).rate(rate).loops(0).build();
    }
    SyntheticTraffic.Builder traffic = SyntheticTraffic.builder()
        .count(0)
        .rate(rate)
        .eventRate(rate)
        .start(System.currentTimeMillis());
    // only the settings of the format written: the builder refuses one its format would ignore
    if (jobChoice == DemoJob.DEDUP) {
      return traffic.format(SyntheticTraffic.Format.EVENTS)
          .tenants(DEDUP_TENANTS)
          .build();
    }
    traffic.format(SyntheticTraffic.Format.PACKETS)
        // a batch is sent when its last packet is due: about ten a second, so a low --rate still flows
        .batchSize(Math.max(1, Math.min(1000, rate / 10)))
        .heavyHitterShare(heavyHitter);
    if (heavyHitter > 0) { // the builder refuses a time to inject nothing (--heavy-hitter 0)
      traffic.injectAfter(injectAfter);
    }
    return traffic.build();
  }
}
