package io.linerate.jobs.cli;

import java.time.Duration;
import java.util.concurrent.Callable;

import io.linerate.jobs.local.Demo;
import io.linerate.jobs.local.PassThroughFeeder;
import io.linerate.jobs.local.PassThroughJob;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code linerate demo}: everything on this machine, nothing to install. Starts a Kafka broker (KRaft, loopback
 * ports, temporary folder), creates the topics, starts a local Flink cluster (REST and web UI on a printed loopback
 * port), runs a job and feeds it, then on Ctrl-C or after {@code --duration} stops everything in reverse order and
 * removes what it created.
 *
 * <p>Today the job is a pass-through (input topic copied to the output topic exactly once) fed with numbered
 * records: it shows the embedded broker, the local cluster and the exactly-once Kafka source and sink at work, and
 * checks at the end that the output holds each fed record once. The heavy-hitters job and synthetic packet traffic
 * replace it when they land.
 */
@Command(name = "demo", mixinStandardHelpOptions = true, versionProvider = Main.ManifestVersion.class,
    sortOptions = false, usageHelpAutoWidth = true,
    description = {
        "Runs a Kafka broker, a local Flink cluster, a job and a feeder on this machine; stops and removes them on "
            + "Ctrl-C or after --duration.",
        "For now the job is a pass-through demo (input topic copied to the output topic exactly once) until the "
            + "heavy-hitters job lands."})
public final class DemoCommand implements Callable<Integer> {

  @Spec
  private CommandSpec spec;

  @Mixin
  private FlinkOptions flink;

  private Duration duration = Duration.ZERO;
  private int rate = 1_000;
  private int partitions = 2;

  @Option(names = "--duration", paramLabel = "DURATION", defaultValue = "0s", converter = DurationConverter.class,
      description = "How long the job runs once started, e.g. 30s, 5m; 0s: until Ctrl-C (default: ${DEFAULT-VALUE})")
  void duration(Duration value) {
    if (value.isNegative()) {
      throw new ParameterException(spec.commandLine(), "--duration must be >= 0s, got " + value);
    }
    duration = value;
  }

  @Option(names = "--rate", paramLabel = "RECORDS_PER_SECOND", defaultValue = "1000",
      description = "Records the feeder writes per second (default: ${DEFAULT-VALUE})")
  void rate(int value) {
    if (value < 1 || value > 1_000_000) {
      throw new ParameterException(spec.commandLine(), "--rate must be in [1, 1000000], got " + value);
    }
    rate = value;
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
    Demo.Result result = Demo.builder(new PassThroughJob(), new PassThroughFeeder(rate))
        .flinkConfiguration(flink.configuration())
        .slots(flink.parallelism())
        .partitions(partitions)
        .duration(duration)
        .out(System.out)
        .build()
        .run();
    return result.succeeded() ? 0 : 1;
  }
}
