package io.linerate.jobs.heavyhitters;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import java.util.List;
import java.util.stream.Collectors;

import io.linerate.flink.heavyhitters.HeavyHitterDetector;
import io.linerate.jobs.cli.Main;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * {@code linerate heavy-hitters}: registered in {@link Main}, {@code --help} gives every option a default, values
 * reach the job, and bad values or combinations fail with the option named before anything runs.
 */
class HeavyHittersCommandTest {

  private record Run(int exitCode, String out, String err) {}

  private static Run run(String... args) {
    CommandLine cl = Main.commandLine().setUsageHelpWidth(400);
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    cl.setOut(new PrintWriter(out));
    cl.setErr(new PrintWriter(err));
    return new Run(cl.execute(args), out.toString(), err.toString());
  }

  private static HeavyHittersCommand parse(String... args) {
    HeavyHittersCommand cmd = new HeavyHittersCommand();
    new CommandLine(cmd).parseArgs(args);
    return cmd;
  }

  @Test
  void helpListsEveryOptionWithADefault() {
    Run help = run("heavy-hitters", "--help");
    assertThat(help.exitCode()).isZero();
    List<String> options = List.of("--window", "--slide", "--top-k", "--phi", "--weight", "--item", "--capacity",
        "--memory-budget", "--seed", "--alert-weight", "--alert-fraction", "--alert-min-window-weight",
        "--out-of-orderness", "--idleness", "--alerts-topic", "--bounded", "--state-cache", "--bootstrap-servers",
        "--input-topic",
        "--output-topic", "--dead-letter-topic", "--parallelism", "--checkpoint-interval", "--state-backend",
        "--checkpoint-dir", "--kafka-config", "--kafka-property", "--consumer-property", "--producer-property",
        "--max-dead-letter-bytes");
    List<String> lines = help.out().lines().map(String::strip).collect(Collectors.toList());
    for (String option : options) {
      int at = -1;
      for (int i = 0; i < lines.size() && at < 0; i++) {
        if (lines.get(i).startsWith(option + "=") || lines.get(i).startsWith(option + " ")
            || lines.get(i).equals(option)) {
          at = i;
        }
      }
      assertThat(at).as(option + " in\n" + help.out()).isNotNegative();
      // the entry: the option's line and the description lines under it
      StringBuilder line = new StringBuilder(lines.get(at));
      for (int j = at + 1; j < lines.size() && !lines.get(j).startsWith("-") && !lines.get(j).isEmpty(); j++) {
        line.append(' ').append(lines.get(j));
      }
      assertThat(line.toString()).as(option).containsPattern("\\(default: [^)]*\\)$");
    }
    assertThat(help.out()).contains("(default: 1m)").contains("(default: five-tuple)").contains("(default: packets)");
  }

  @Test
  void defaultsAndGivenValuesReachTheJob() {
    HeavyHittersJob defaults = parse().job();
    HeavyHitterDetector<?, ?> d = defaults.detector();
    assertThat(d.windowSize()).isEqualTo(Duration.ofMinutes(1));
    assertThat(d.slide()).isEqualTo(Duration.ofMinutes(1));
    assertThat(d.k()).isEqualTo(10);
    assertThat(d.phi()).isEqualTo(0.01);
    assertThat(d.capacity()).isEqualTo(400); // 4 * max(k, ceil(1/phi))
    assertThat(defaults.item()).isEqualTo(PacketItem.FIVE_TUPLE);
    assertThat(defaults.weight()).isEqualTo(HeavyHittersJob.Weight.PACKETS);
    assertThat(defaults.outOfOrderness()).isEqualTo(Duration.ofSeconds(5));
    assertThat(defaults.idleness()).isEqualTo(Duration.ofSeconds(30));
    assertThat(d.stateCacheBytes()).isEqualTo(HeavyHitterDetector.DEFAULT_STATE_CACHE_BYTES);
    HeavyHittersCommand cmd0 = parse();
    assertThat(defaults.alertsTopic(cmd0.topics())).isEqualTo("alerts");

    HeavyHittersCommand cmd = parse("--window", "5m", "--slide", "1m", "--top-k", "20", "--phi", "0.05",
        "--weight", "BYTES", "--item", "src-address", "--capacity", "100", "--out-of-orderness", "2s",
        "--idleness", "0s", "--alerts-topic", "", "--output-topic", "hh", "--parallelism", "2", "--state-cache", "1m");
    HeavyHittersJob job = cmd.job();
    assertThat(job.detector().windowSize()).isEqualTo(Duration.ofMinutes(5));
    assertThat(job.detector().slide()).isEqualTo(Duration.ofMinutes(1));
    assertThat(job.detector().subWindows()).isEqualTo(5);
    // the detector's default keeps 64 slides open ahead of the window; the job at least 5 minutes of them, at most
    // 1,024 slides
    HeavyHittersJob second = parse("--window", "1s").job();
    assertThat(second.detector().maxOpenSubWindows() - second.detector().subWindows()).isEqualTo(300);
    HeavyHittersJob small = parse("--window", "1s", "--slide", "250ms").job();
    assertThat(small.detector().maxOpenSubWindows() - small.detector().subWindows()).isEqualTo(1024);
    HeavyHittersJob minute = parse("--window", "1m").job();
    assertThat(minute.detector().maxOpenSubWindows() - minute.detector().subWindows()).isEqualTo(64);
    assertThat(job.detector().k()).isEqualTo(20);
    assertThat(job.detector().capacity()).isEqualTo(100);
    assertThat(job.item()).isEqualTo(PacketItem.SRC_ADDRESS);
    assertThat(job.weight()).isEqualTo(HeavyHittersJob.Weight.BYTES);
    assertThat(job.idleness()).isZero();
    assertThat(job.detector().stateCacheBytes()).isEqualTo(1L << 20);
    assertThat(job.alertsTopic(cmd.topics())).isEqualTo("hh");
    assertThat(cmd.flink().parallelism()).isEqualTo(2);
  }

  @Test
  void badValuesAndCombinationsFailNamingTheOption() {
    String[][] cases = {
        {"--window", "0s", "--window"}, {"--slide", "-1s", "--slide"}, {"--top-k", "0", "--top-k"},
        {"--phi", "1", "--phi"}, {"--phi", "0", "--phi"}, {"--weight", "flows", "--weight"},
        {"--item", "port", "--item"}, {"--capacity", "-1", "--capacity"}, {"--memory-budget", "-5", "--memory-budget"},
        {"--alert-fraction", "1.5", "--alert-fraction"}, {"--alert-weight", "-1", "--alert-weight"},
        {"--out-of-orderness", "-1s", "--out-of-orderness"}, {"--idleness", "soon", "--idleness"},
        {"--state-cache", "lots", "--state-cache"}, {"--state-cache", "-1", "--state-cache"},
    };
    for (String[] c : cases) {
      Run r = run("heavy-hitters", c[0], c[1]);
      assertThat(r.exitCode()).as(c[0] + " " + c[1]).isEqualTo(2);
      assertThat(r.err().lines().findFirst().orElse("")).as(c[0] + " " + c[1]).contains(c[2]);
    }
    // durations in the errors as the options take them (0s), not Duration.toString() (PT0S)
    assertThat(run("heavy-hitters", "--window", "0s").err()).contains("--window must be >= 1ms, got 0s");
    // combinations: checked when the job is built, before anything connects or runs
    Run notMultiple = run("heavy-hitters", "--window", "10s", "--slide", "3s");
    assertThat(notMultiple.exitCode()).isEqualTo(2);
    assertThat(notMultiple.err()).contains("--window/--slide").contains("multiple");
    Run both = run("heavy-hitters", "--capacity", "1000", "--memory-budget", "64k");
    assertThat(both.exitCode()).isEqualTo(2);
    assertThat(both.err()).contains("set either capacity or memoryBudget, not both: the budget chooses the capacity"
        + " (got capacity 1000 and memoryBudget 65536)").contains("--capacity").contains("--memory-budget");
    Run tooSmall = run("heavy-hitters", "--capacity", "5");
    assertThat(tooSmall.exitCode()).isEqualTo(2);
    assertThat(tooSmall.err()).contains("capacity").contains("--capacity");
  }

  /**
   * --alert-min-window-weight only delays fraction alerts: without --alert-fraction (or with 0, off) it would be
   * ignored, so it is refused naming both options; with a fraction it is taken.
   */
  @Test
  void alertMinWindowWeightWithoutAlertFractionIsRefused() {
    for (String[] args : new String[][] {{"--alert-min-window-weight", "5000"},
        {"--alert-min-window-weight", "5000", "--alert-fraction", "0"},
        {"--alert-min-window-weight", "1000", "--alert-weight", "100"}}) {
      assertThat(org.assertj.core.api.Assertions.catchThrowable(() -> parse(args).job())).as(String.join(" ", args))
          .isInstanceOf(CommandLine.ParameterException.class)
          .hasMessage("--alert-min-window-weight applies to fraction alerts only (--alert-fraction), which are off:"
              + " set --alert-fraction or leave it out (got --alert-min-window-weight " + args[1] + ")");
    }
    Run r = run("heavy-hitters", "--alert-min-window-weight", "5000");
    assertThat(r.exitCode()).isEqualTo(2);
    assertThat(r.err().lines().findFirst().orElse("")).contains("--alert-min-window-weight applies to fraction "
        + "alerts only (--alert-fraction)");
    parse("--alert-fraction", "0.2", "--alert-min-window-weight", "5000").job();
    parse("--alert-fraction", "0.2").job(); // the default minimum applies
    parse().job();
  }

  /** --memory-budget takes the size suffixes --state-cache and the flow meter's --memory-budget take. */
  @Test
  void memoryBudgetTakesSizeSuffixes() {
    HeavyHittersCommand suffixed = parse("--memory-budget", "64k");
    HeavyHittersCommand plain = parse("--memory-budget", "65536");
    assertThat(suffixed.job().detector().trackerBytes()).isEqualTo(plain.job().detector().trackerBytes())
        .isLessThanOrEqualTo(65_536).isGreaterThan(32_768);
    assertThat(suffixed.job().detector().capacity()).isEqualTo(plain.job().detector().capacity());
    Run bad = run("heavy-hitters", "--memory-budget", "64q");
    assertThat(bad.exitCode()).isEqualTo(2);
    assertThat(bad.err()).contains("--memory-budget must be a number of bytes >= 0 (suffix k, m, g allowed), got "
        + "'64q'");
  }

  /** A topic the job writes that is its input would feed it its own output, without end: refused before it runs. */
  @Test
  void noWrittenTopicMayBeTheInputTopic() {
    String[][] cases = {{"--output-topic", "t"}, {"--dead-letter-topic", "t"}, {"--alerts-topic", "t"}};
    for (String[] c : cases) {
      Run r = run("heavy-hitters", "--input-topic", "t", c[0], c[1]);
      assertThat(r.exitCode()).as(c[0]).isEqualTo(2);
      assertThat(r.err().lines().findFirst().orElse("")).as(c[0])
          .contains(c[0] + " must differ from --input-topic ('t'): the job would read what it writes");
    }
    assertThat(org.assertj.core.api.Assertions.catchThrowable(() -> new io.linerate.jobs.local.JobTopics(
        "localhost:9092", "t", "out", "t"))).isInstanceOf(IllegalArgumentException.class)
        .hasMessage("deadLetter topic 't' is the input topic: the job would read what it writes, without end");
  }

  /**
   * --alerts-topic is checked like the other topics when parsed (parsed only: an unchecked name would let the
   * command run the job, which then fails once the sink writes); empty still means the output topic.
   */
  @Test
  void alertsTopicMustBeATopicName() {
    for (String bad : new String[] {"bad topic!", "..", "x".repeat(250), "é"}) {
      assertThat(org.assertj.core.api.Assertions.catchThrowable(() -> parse("--alerts-topic", bad)))
          .as(bad).isInstanceOf(CommandLine.ParameterException.class)
          .hasMessageStartingWith("--alerts-topic must be a Kafka topic name");
    }
    HeavyHittersCommand empty = parse("--alerts-topic", " ", "--output-topic", "out");
    assertThat(empty.job().alertsTopic(empty.topics())).isEqualTo("out");
  }

  /** --transaction-timeout reaches the job's sinks: a 12 min checkpoint interval passes the sink's own check. */
  @Test
  void theTransactionTimeoutReachesTheSinks() {
    HeavyHittersCommand cmd = parse("--checkpoint-interval", "12m", "--transaction-timeout", "15m");
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(cmd.flink().configuration());
    cmd.job().define(env, cmd.topics()); // the sink's check: 12m < the job's transaction timeout
  }

  @Test
  void addressItemsAreReportedAsAddresses() {
    assertThat(PacketItem.SRC_ADDRESS.text("0a000102")).isEqualTo("10.0.1.2");
    assertThat(PacketItem.DST_ADDRESS.text("20010db8000000000000000000000001")).isEqualTo("2001:db8::1");
    assertThat(PacketItem.FIVE_TUPLE.text("10.0.0.1 10.0.0.2 1 2 6")).isEqualTo("10.0.0.1 10.0.0.2 1 2 6");
    assertThat(PacketItem.parse("DST-Address")).isEqualTo(PacketItem.DST_ADDRESS);
  }
}
