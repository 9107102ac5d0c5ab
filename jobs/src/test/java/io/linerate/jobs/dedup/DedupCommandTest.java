package io.linerate.jobs.dedup;

import java.time.Duration;

import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** The {@code dedup} command's options reaching the job (its other checks: {@code JobCommandsTest}). */
class DedupCommandTest {

  /** --transaction-timeout reaches the dedup job's sinks: a 12 min interval passes their check. */
  @Test
  void theTransactionTimeoutReachesTheSinks() {
    DedupCommand dedup = new DedupCommand();
    new CommandLine(dedup).parseArgs("--checkpoint-interval", "12m", "--transaction-timeout", "15m");
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
    env.enableCheckpointing(Duration.ofMinutes(12).toMillis());
    dedup.job().define(env, dedup.topics());
  }

  /** --job-name reaches the dedup job (its name is its consumer group and transactional id prefix too). */
  @Test
  void theJobNameReachesTheJob() {
    DedupCommand dedup = new DedupCommand();
    new CommandLine(dedup).parseArgs("--job-name", "dedup-tenant-a");
    org.assertj.core.api.Assertions.assertThat(dedup.job().name()).isEqualTo("dedup-tenant-a");
  }
}
