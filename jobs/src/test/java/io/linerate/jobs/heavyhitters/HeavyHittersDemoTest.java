package io.linerate.jobs.heavyhitters;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.linerate.jobs.cli.FlinkOptions;
import io.linerate.jobs.format.OutputJson;
import io.linerate.jobs.format.PacketBatch;
import io.linerate.jobs.format.PacketBatchCodec;
import io.linerate.jobs.kafka.TopicReader;
import io.linerate.jobs.local.DemoConfigurations;
import io.linerate.jobs.local.Demo;
import io.linerate.jobs.local.FeedContext;
import io.linerate.jobs.local.Feeder;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.StateBackendOptions;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.IntegerSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The heavy-hitters job as the demo runs it ({@link Demo}: embedded broker, {@code LocalFlink}, the job through
 * its {@code JobLauncher} interface, a feeder of packet batches stamped with the wall clock): the run succeeds, the
 * drain prints the top-k table, and every report committed before the stop has the exact N of its window and lists
 * the injected heavy flow.
 */
class HeavyHittersDemoTest {

  static final long WINDOW_MS = 1_000;

  /** Two observation points (keys 0 and 1), 20 packets each per 20 ms, a third of them one heavy flow. */
  static final class PacketFeeder implements Feeder {
    /** Exact packets per "op@windowStart". */
    final Map<String, AtomicLong> truth = new ConcurrentHashMap<>();

    @Override
    public String description() {
      return "test packets, 2 observation points, 1,000 packets/s each";
    }

    @Override
    public void feed(FeedContext context) throws Exception {
      SplittableRandom rnd = new SplittableRandom(7);
      try (KafkaProducer<Integer, byte[]> producer = new KafkaProducer<>(Map.of(
          ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, context.bootstrapServers(),
          ProducerConfig.ACKS_CONFIG, "all",
          ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, IntegerSerializer.class.getName(),
          ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName()))) {
        while (!context.stopRequested()) {
          long now = System.currentTimeMillis();
          for (int op = 0; op < 2; op++) {
            PacketBatch batch = new PacketBatch(op, 20);
            for (int i = 0; i < 20; i++) {
              int flow = rnd.nextInt(3) == 0 ? 9_999 : rnd.nextInt(500);
              batch.addIpv4(now, 0x0A000000 | flow, 0x0A0000FE, 1000 + flow, 80, 6, 0, 100);
            }
            producer.send(new ProducerRecord<>(context.topic(), op, op, PacketBatchCodec.encode(batch))).get();
            truth.computeIfAbsent(op + "@" + (now - now % WINDOW_MS), k -> new AtomicLong()).addAndGet(20);
            context.sent(1);
          }
          Thread.sleep(20);
        }
      }
    }
  }

  @Test
  @Timeout(120)
  void theDemoRunsTheJobAndPrintsTheTopKTable() throws Exception {
    ByteArrayOutputStream captured = new ByteArrayOutputStream();
    PrintStream out = new PrintStream(captured, true, StandardCharsets.UTF_8);
    Configuration conf = DemoConfigurations.fastCheckpoints(2);
    conf.set(StateBackendOptions.STATE_BACKEND, FlinkOptions.StateBackend.HEAP.flinkName());
    HeavyHittersJob job = HeavyHittersJob.builder().window(Duration.ofMillis(WINDOW_MS)).topK(3).phi(0.05)
        .outOfOrderness(Duration.ofMillis(200)).alertAtFraction(0.3, 100).build();
    PacketFeeder feeder = new PacketFeeder();
    List<String> output = new ArrayList<>();
    ByteArrayOutputStream live = new ByteArrayOutputStream();
    java.util.concurrent.atomic.AtomicBoolean viewerEnded = new java.util.concurrent.atomic.AtomicBoolean();
    java.util.concurrent.atomic.AtomicReference<RuntimeException> viewerFailure =
        new java.util.concurrent.atomic.AtomicReference<>();
    Demo.Result result = Demo.builder(job, feeder)
        .flinkConfiguration(conf).slots(2).partitions(2)
        .duration(Duration.ofSeconds(4))
        .terminal(false)
        .out(out)
        .beforeStop(topics -> {
          output.addAll(TopicReader.readAll(topics.bootstrapServers(), topics.output(), true));
          // the live view on a thread of its own until interrupted, as a demo runs it
          Thread viewer = new Thread(() -> {
            try (TopKView view = TopKView.builder(topics.bootstrapServers(), topics.output()).rows(2)
                .terminal(true).build()) {
              view.run(Duration.ZERO, new PrintStream(live, true, StandardCharsets.UTF_8));
            } catch (RuntimeException e) {
              viewerFailure.set(e);
            }
          }, "top-k-view");
          viewer.start();
          try {
            // until the view has drawn both points' tables (a fixed 2 s wait assumed it would by then)
            long deadline = System.nanoTime() + 60_000_000_000L;
            String drawn;
            while (!((drawn = live.toString(StandardCharsets.UTF_8)).contains("observation point 1")
                && drawn.contains("10.0.39.15 10.0.0.254 10999 80 6")) && viewer.isAlive()
                && System.nanoTime() < deadline) {
              Thread.sleep(50);
            }
            viewer.interrupt();
            viewer.join(10_000);
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
          viewerEnded.set(!viewer.isAlive());
        })
        .build()
        .run();
    String text = captured.toString(StandardCharsets.UTF_8);
    System.out.print(text);

    assertThat(result.failure()).isNull();
    assertThat(result.succeeded()).isTrue();
    assertThat(text).contains("heavy hitters per observation point").contains("observation point 0")
        .contains("observation point 1").contains("10.0.39.15 10.0.0.254 10999 80 6");

    String liveText = live.toString(StandardCharsets.UTF_8);
    assertThat(viewerEnded).as("the view's thread ends when interrupted").isTrue();
    assertThat(viewerFailure.get()).as("the view stops and closes quietly when interrupted").isNull();
    assertThat(liveText).startsWith("observation point 0").contains("observation point 1")
        .contains("10.0.39.15 10.0.0.254 10999 80 6");

    ObjectMapper json = new ObjectMapper();
    int reports = 0;
    int alerts = 0;
    for (String v : output) {
      JsonNode n = json.readTree(v);
      if (n.get("type").asText().equals(OutputJson.HEAVY_HITTER_ALERT)) {
        alerts++;
        continue;
      }
      reports++;
      String key = n.get("scope").asInt() + "@" + n.get("window_start").asLong();
      assertThat(feeder.truth).containsKey(key);
      assertThat(n.get("total_weight").asLong()).as("N of " + key).isEqualTo(feeder.truth.get(key).get());
      assertThat(n.get("items").get(0).get("item").asText()).isEqualTo("10.0.39.15 10.0.0.254 10999 80 6");
    }
    System.out.printf(Locale.ROOT, "demo: %d reports, %d alerts committed before the stop%n", reports, alerts);
    assertThat(reports).isGreaterThanOrEqualTo(2);
    assertThat(alerts).as("alerts share the output topic in the demo").isGreaterThanOrEqualTo(1);
  }
}
