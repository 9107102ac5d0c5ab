package io.linerate.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.LongStream;

import org.apache.flink.api.common.functions.RichMapFunction;
import org.apache.flink.api.common.serialization.SimpleStringSchema;
import org.apache.flink.api.common.state.CheckpointListener;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.state.FunctionInitializationContext;
import org.apache.flink.runtime.state.FunctionSnapshotContext;
import org.apache.flink.streaming.api.checkpoint.CheckpointedFunction;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

import io.linerate.jobs.kafka.EmbeddedKafka;
import io.linerate.jobs.kafka.ExactlyOnceSink;
import io.linerate.jobs.kafka.TopicReader;

/**
 * The checkpoint timeout {@link ExactlyOnceSink#checkCheckpointing} sets must keep every transaction within the
 * transaction timeout. A transaction opens when the barrier of checkpoint n passes the sink and commits when
 * checkpoint n+1 completes; with one checkpoint at a time, n+1 is triggered only once n has completed, so a slow
 * checkpoint n delays it: the transaction can live two checkpoint durations, not the interval plus one.
 *
 * <p>Here every checkpoint takes 16 s (an operator's snapshot sleeps), the transaction timeout is 30 s, checkpoints
 * are due every 100 ms. A checkpoint timeout of 30 s − 10 s − 100 ms = 19.9 s lets both checkpoints complete, and
 * the transaction of the second (open from about 0.1 s to 32 s) is aborted by the broker before Flink commits it:
 * its records are gone although the checkpoint that covers them completed. Every completed checkpoint's records
 * must be in the committed output. With the budget of {@link ExactlyOnceSink#checkpointTimeoutFor} (here 10 s) the
 * 16 s checkpoints expire instead and the job fails without losing a committed record; a budget raised again past
 * half the transaction timeout would fail this test. About a minute, so it runs with the full sizes only
 * ({@code -Pit-full}); the budget's arithmetic is checked in every build by {@code TransactionLifetimeTest} (jobs).
 */
@Timeout(120)
@EnabledIfSystemProperty(named = "linerate.it.scale", matches = "full")
class TransactionLifetimeIT {

  @RegisterExtension
  static final org.apache.flink.test.junit5.MiniClusterExtension FLINK = new org.apache.flink.test.junit5.MiniClusterExtension(
      new org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration.Builder().setNumberTaskManagers(1)
          .setNumberSlotsPerTaskManager(4).build());

  static final Map<Long, Long> EMITTED_BEFORE_BARRIER = new ConcurrentHashMap<>();
  static final Map<Long, Boolean> COMPLETED = new ConcurrentHashMap<>();

  @Test
  void aSlowCheckpointDoesNotLetATransactionOutliveItsTimeout() throws Exception {
    try (EmbeddedKafka kafka = EmbeddedKafka.builder()
        .property("transaction.abort.timed.out.transaction.cleanup.interval.ms", "200")
        .progress(line -> System.out.println("[TransactionLifetimeIT] " + line)).start()) {
      kafka.createTopics(1, "lifetime-out");
      Configuration conf = new Configuration();
      conf.set(RestartStrategyOptions.RESTART_STRATEGY, "none");
      StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
      env.setParallelism(1);
      env.enableCheckpointing(100);
      DataStream<String> records = env.fromSequence(0, 1_000_000).map(new Paced()).name("paced");
      records.map(new SlowSnapshot()).name("slow snapshot").disableChaining().sinkTo(new DiscardingSink<>());
      ExactlyOnceSink.builder(new SimpleStringSchema())
          .bootstrapServers(kafka.bootstrapServers())
          .topic("lifetime-out")
          .jobName("lifetime")
          .transactionTimeout(Duration.ofSeconds(30))
          .sinkTo(records);
      long checkpointTimeout = env.getCheckpointConfig().getCheckpointTimeout();
      System.out.println("[TransactionLifetimeIT] checkpoint timeout " + checkpointTimeout + " ms");

      JobClient job = env.executeAsync("transaction lifetime");
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(45);
      while (!COMPLETED.containsKey(2L) && !job.getJobStatus().get().isGloballyTerminalState()
          && System.nanoTime() < deadline) {
        Thread.sleep(200);
      }
      boolean waited = COMPLETED.containsKey(2L) || job.getJobStatus().get().isGloballyTerminalState();
      Thread.sleep(3_000); // the committer's commit follows the checkpoint's completion
      List<String> committed = TopicReader.readAll(kafka.bootstrapServers(), "lifetime-out", true);
      String status = job.getJobStatus().get().toString();
      if (!job.getJobStatus().get().isGloballyTerminalState()) {
        job.cancel().get(30, TimeUnit.SECONDS);
      } else {
        try {
          job.getJobExecutionResult().get(10, TimeUnit.SECONDS);
        } catch (Exception e) {
          Throwable t = e;
          while (t.getCause() != null) {
            t = t.getCause();
          }
          status += " (" + t + ")";
        }
      }
      System.out.println("[TransactionLifetimeIT] job " + status);
      // a wait that ran out tested neither path of the class comment (both checkpoints completed, or they expired
      // and the job failed) and would pass with nothing to check
      assertThat(waited).as("checkpoint 2 completed or the job ended within 45 s (completed checkpoints %s)",
          COMPLETED.keySet()).isTrue();
      System.out.println("[TransactionLifetimeIT] completed checkpoints " + COMPLETED.keySet()
          + ", records before their barriers " + EMITTED_BEFORE_BARRIER + ", committed " + committed.size());
      for (long c : COMPLETED.keySet()) {
        long before = EMITTED_BEFORE_BARRIER.get(c);
        List<String> expected = LongStream.range(0, before).mapToObj(Long::toString).collect(Collectors.toList());
        assertThat(committed).as("records before the barrier of completed checkpoint %d", c)
            .containsAll(expected);
      }
    }
  }

  /** Passes a record on every 50 ms; notes how many it passed before each checkpoint's barrier. */
  static final class Paced extends RichMapFunction<Long, String> implements CheckpointedFunction, CheckpointListener {
    private long emitted;

    @Override
    public String map(Long value) throws Exception {
      Thread.sleep(50);
      emitted++;
      return Long.toString(value);
    }

    @Override
    public void snapshotState(FunctionSnapshotContext context) {
      EMITTED_BEFORE_BARRIER.put(context.getCheckpointId(), emitted);
    }

    @Override
    public void initializeState(FunctionInitializationContext context) {
    }

    @Override
    public void notifyCheckpointComplete(long checkpointId) {
      COMPLETED.put(checkpointId, true);
    }
  }

  /** Takes 16 s to snapshot (as a large state's upload might). */
  static final class SlowSnapshot extends RichMapFunction<String, String> implements CheckpointedFunction {
    @Override
    public String map(String value) {
      return value;
    }

    @Override
    public void snapshotState(FunctionSnapshotContext context) throws Exception {
      Thread.sleep(16_000);
    }

    @Override
    public void initializeState(FunctionInitializationContext context) {
    }
  }
}
