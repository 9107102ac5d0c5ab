package io.linerate.jobs.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashMap;
import java.util.HashSet;
import java.util.Locale;
import java.util.Map;
import java.util.Queue;
import java.util.Set;

import io.linerate.flink.dedup.DedupFunction;
import io.linerate.flink.dedup.DedupSizing;
import io.linerate.flink.dedup.Deduplicator;
import io.linerate.flink.state.WriteBackOperator;
import io.linerate.jobs.dedup.DedupJob;
import io.linerate.jobs.dedup.ScopedEvent;
import io.linerate.jobs.dedup.ScopedEventFormat;
import io.linerate.jobs.feed.SyntheticTraffic;
import io.linerate.jobs.feed.TrafficSource;
import io.linerate.jobs.format.JsonEventFormat;
import io.linerate.jobs.local.Demo;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * The dedup demo ({@code demo --job DEDUP --rate R}) sizes each tenant's filters for that tenant's share of R,
 * not for all of R (which took {@value DemoCommand#DEDUP_TENANTS} times the memory): the demo's own traffic is
 * checked to split evenly over the tenants and never to put more distinct keys into one tenant's generation than
 * it is sized for, and the demo's job, run on that traffic through the deduplicator, keeps false positives within
 * its target.
 */
class DemoDedupSizingTest {

  private static DemoCommand demo(int rate) {
    DemoCommand demo = new DemoCommand(d -> new Demo.Result(0, JobStatus.FINISHED, true, false, null));
    new CommandLine(demo).setCaseInsensitiveEnumValuesAllowed(true)
        .parseArgs("--job", "DEDUP", "--rate", Integer.toString(rate));
    return demo;
  }

  /** A span's events: ⌈R·S⌉ + 1 at most (the generator's event time advances 1/R s per event). */
  private static double eventsPerSpan(int rate, DedupSizing sizing) {
    return Math.ceil(rate * (sizing.spanMillis() / 1000.0)) + 1;
  }

  /**
   * A generation holds min(μ + t, N) keys, μ = N/T the tenant's mean share of a span's N events and t Bernstein's
   * margin (DemoCommand.dedupTenantRate): about a quarter of the span's events at the default rate, not all of
   * them.
   */
  @Test
  void eachTenantIsSizedForItsShareOfTheRate() {
    DedupSizing atDefault = demo(20_000).dedupJob(20_000).deduplicator().sizing();
    assertThat((double) atDefault.itemsPerGeneration()).as("a tenant's generation at the default rate")
        .isLessThan(1.03 * eventsPerSpan(20_000, atDefault) / DemoCommand.DEDUP_TENANTS);
    for (int rate : new int[] {1, 50, 2_000, 20_000, 1_000_000}) {
      DedupSizing sizing = demo(rate).dedupJob(rate).deduplicator().sizing();
      double n = eventsPerSpan(rate, sizing);
      double mean = n / DemoCommand.DEDUP_TENANTS;
      double l = DemoCommand.DEDUP_OVERLOAD_LOG;
      double margin = l / 3 + Math.sqrt(l * l / 9 + 2 * mean * l);
      System.out.printf(Locale.ROOT, "--rate %d: span %d ms, %.0f events per span, %d keys per tenant's generation "
          + "(min(mean share %.0f + margin %.0f, all)), %d bytes per tenant%n", rate, sizing.spanMillis(), n,
          sizing.itemsPerGeneration(), mean, margin, sizing.stateBytesPerKey());
      double sized = Math.min(mean + margin, n);
      assertThat((double) sizing.itemsPerGeneration()).as("keys per generation at --rate %d", rate)
          .isGreaterThanOrEqualTo(sized)
          .isLessThanOrEqualTo(Math.ceil(sized) + 1);
      assertThat(sizing.fpp()).isEqualTo(0.001);
      assertThat(sizing.horizonMillis()).isEqualTo(DemoCommand.DEDUP_HORIZON.toMillis());
    }
  }

  /**
   * The demo's traffic, per tenant and generation span (epoch ⌊ts/S⌋ of the event time): the tenants get equal
   * shares (each within 1/T ± 5σ of the binomial), and no tenant's span holds more distinct keys than a
   * generation is sized for. A span's distinct keys are what its generation takes (a repeat already in it is not
   * inserted again).
   */
  @Test
  void noTenantsSpanHoldsMoreKeysThanItsGenerationIsSizedFor() throws Exception {
    for (int rate : new int[] {50, 2_000, 20_000}) {
      DemoCommand demo = demo(rate);
      DedupSizing sizing = demo.dedupJob(rate).deduplicator().sizing();
      int spans = rate == 50 ? 60 : rate == 2_000 ? 5 : 3;
      long events = (long) (spans * rate * (sizing.spanMillis() / 1000.0));
      TrafficSource source = ((SyntheticTraffic) demo.feeder()).source();
      ScopedEventFormat format = format();
      Map<String, Set<String>> spanKeys = new HashMap<>();
      Map<String, Long> perTenant = new HashMap<>();
      long largest = 0;
      for (long i = 0; i < events; i++) {
        ScopedEvent e = format.decode(source.next().value());
        perTenant.merge(e.scope, 1L, Long::sum);
        Set<String> keys = spanKeys.computeIfAbsent(e.scope + "@"
            + Math.floorDiv(e.event.timestamp, sizing.spanMillis()), k -> new HashSet<>());
        keys.add(e.event.key);
        largest = Math.max(largest, keys.size());
      }
      System.out.printf(Locale.ROOT,
          "--rate %d: %d events over %d spans, per tenant %s; largest span of one tenant: %d "
          + "distinct keys, a generation holds %d%n", rate, events, spans, perTenant, largest,
          sizing.itemsPerGeneration());
      assertThat(perTenant).hasSize(DemoCommand.DEDUP_TENANTS);
      double q = 1.0 / DemoCommand.DEDUP_TENANTS;
      double sigma = Math.sqrt(events * q * (1 - q));
      perTenant.forEach((tenant, count) -> assertThat((double) count).as("events of %s", tenant)
          .isBetween(events * q - 5 * sigma, events * q + 5 * sigma));
      assertThat(largest).as("distinct keys of one tenant in one span at --rate %d", rate)
          .isLessThanOrEqualTo(sizing.itemsPerGeneration());
    }
  }

  /**
   * The demo's job on the demo's traffic (--rate 2000, six 20-second spans of event time, the first five full
   * ones included, every tenant's ring at its sizing load), through the job's own deduplicator in event time:
   * no repeat passes, and the new keys flagged are at most p·n + 4·√(p·n), n the new keys, p the job's target
   * (0.001): the binomial count of false positives has mean ≤ p·n and standard deviation ≤ √(p·n).
   */
  @Test
  void theDemosFalsePositivesStayWithinItsTarget() throws Exception {
    int rate = 2_000;
    DemoCommand demo = demo(rate);
    Deduplicator<ScopedEvent, String> dedup = demo.dedupJob(rate).deduplicator();
    DedupSizing sizing = dedup.sizing();
    long events = (long) (6 * rate * (sizing.spanMillis() / 1000.0));
    TrafficSource source = ((SyntheticTraffic) demo.feeder()).source();
    ScopedEventFormat format = format();
    DedupFunction<String, ScopedEvent, ScopedEvent> fn = dedup.function(ScopedEvent.typeInfo());
    var harness = new KeyedOneInputStreamOperatorTestHarness<>(new WriteBackOperator<>(fn), dedup.scope(),
        Types.STRING);
    harness.setup();
    harness.open();
    Set<String> seen = new HashSet<>();
    long fresh = 0;
    long flaggedFresh = 0;
    long repeats = 0;
    long passedRepeats = 0;
    try {
      for (long i = 0; i < events; i++) {
        ScopedEvent e = format.decode(source.next().value());
        harness.processElement(e, e.event.timestamp);
        if (i % 1_000 == 999) {
          harness.processWatermark(e.event.timestamp - 1); // events come in event-time order
        }
        boolean flagged = drain(harness.getSideOutput(Deduplicator.duplicatesTag(ScopedEvent.typeInfo()))) == 1;
        drain(harness.getOutput());
        if (seen.add(e.scope + "/" + e.event.key)) {
          fresh++;
          flaggedFresh += flagged ? 1 : 0;
        } else {
          repeats++;
          passedRepeats += flagged ? 0 : 1;
        }
      }
    } finally {
      harness.close();
    }
    double p = sizing.fpp();
    double bound = p * fresh + 4 * Math.sqrt(p * fresh);
    System.out.printf(Locale.ROOT,
        "dedup demo at --rate %d: %d events, %d new keys, %d repeats; false positives %d (%.5f, "
        + "target %.3f, bound %.0f), repeats passed %d%n", rate, events, fresh, repeats, flaggedFresh,
        (double) flaggedFresh / fresh, p, bound, passedRepeats);
    assertThat(repeats).as("repeats in the demo's traffic").isGreaterThan(events / 20);
    assertThat(passedRepeats).as("repeats not flagged").isZero();
    assertThat((double) flaggedFresh).as("new keys flagged as duplicates").isLessThanOrEqualTo(bound);
  }

  private static ScopedEventFormat format() {
    return new ScopedEventFormat(JsonEventFormat.builder().keyField("id").timestampField("ts").build(), "tenant",
        DedupJob.DEFAULT_SCOPE);
  }

  private static int drain(Queue<?> q) {
    int n = 0;
    if (q != null) {
      while (q.poll() != null) {
        n++;
      }
    }
    return n;
  }
}
