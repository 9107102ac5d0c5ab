package io.linerate.it;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;

import io.linerate.jobs.dedup.DedupJob;
import io.linerate.jobs.feed.SyntheticTraffic;
import io.linerate.jobs.flowmeter.FlowMeterJob;
import io.linerate.jobs.format.PacketBatch;
import io.linerate.jobs.format.PacketBatchCodec;
import io.linerate.jobs.heavyhitters.HeavyHittersJob;
import io.linerate.jobs.local.JobLauncher;
import io.linerate.jobs.local.JobTopics;

/**
 * The three jobs as the integration tests run them, each with its input traffic: fixed seeds, event time advancing
 * {@value #EVENT_RATE} packets or events per second, observation points (or tenants) spread over
 * {@value #PARTITIONS} partitions by their Kafka key, so each scope's records arrive in one order. Watermarks do not
 * depend on wall-clock idleness (idleness off), so a run's output depends only on its input: the premise of
 * comparing a run with failures to one without, record for record.
 */
public enum Workload {
  HEAVY_HITTERS {
    @Override
    public JobLauncher job(boolean bounded, long stateCacheBytes) {
      HeavyHittersJob.Builder b = HeavyHittersJob.builder().window(Duration.ofSeconds(1)).topK(10).phi(0.01)
          .alertAtWeight(400).outOfOrderness(OUT_OF_ORDERNESS).idleness(Duration.ZERO).bounded(bounded);
      return (stateCacheBytes < 0 ? b : b.stateCacheBytes(stateCacheBytes)).build();
    }

    /**
     * At every scale, the working set of two scopes: a window's sub-windows and, records being out of order, the next
     * window's first (measured 29-34 KB per sub-window), fewer than the six observation points of the busier subtask.
     * The state holds one entry per sub-window (layout 2), so a key the cache does not hold costs the read and write
     * of the sub-window its batch counts into, however many sub-windows a backlog holds open for it. In layout 1 (one
     * ring per key) the same cache at the full scale did not let the run read its input: on 2026-11-28, after three
     * TaskManager kills, the rings of the keys read ahead reached 3.8 MB (127 sub-windows of 30 KB), and every batch
     * of 64 packets read and wrote one (docs/operators/heavy-hitters.md, "Cost when the keys do not fit").
     */
    @Override
    public long stateCache(Scale scale) {
      var d = ((HeavyHittersJob) job(false)).detector();
      long perOpen = 8 + d.trackerBytes(); // the cache weighs a key by its index entries and the trackers it read
      return 2 * (d.subWindows() + 1L) * perOpen;
    }

    @Override
    public SyntheticTraffic traffic(long units, long seed) {
      return packets(units, seed).heavyHitterShare(0.05).build();
    }
  },
  FLOW_METER {
    @Override
    public JobLauncher job(boolean bounded, long stateCacheBytes) {
      FlowMeterJob.Builder b = FlowMeterJob.builder().capacity(FLOW_CAPACITY).idleTimeout(Duration.ofSeconds(2))
          .activeTimeout(Duration.ofSeconds(5)).outOfOrderness(OUT_OF_ORDERNESS).idleness(Duration.ZERO)
          .bounded(bounded);
      return (stateCacheBytes < 0 ? b : b.stateCacheBytes(stateCacheBytes)).build();
    }

    @Override
    public long stateCache(Scale scale) {
      // the flow meter's cache holds whole tables: budget / table bytes of them
      return 2 * ((FlowMeterJob) job(false)).meter().tableBytes();
    }

    @Override
    public SyntheticTraffic traffic(long units, long seed) {
      return packets(units, seed).build();
    }
  },
  DEDUP {
    @Override
    public JobLauncher job(boolean bounded, long stateCacheBytes) {
      DedupJob.Builder b = DedupJob.builder().scopeField("tenant").timestampField("ts")
          .horizon(Duration.ofSeconds(2)).expectedRate(EVENT_RATE / 4.0).fpp(0.001).outOfOrderness(OUT_OF_ORDERNESS)
          .idleness(Duration.ZERO).bounded(bounded);
      return (stateCacheBytes < 0 ? b : b.stateCacheBytes(stateCacheBytes)).build();
    }

    @Override
    public long stateCache(Scale scale) {
      // the cache holds budget / (a ring's bytes: its filters' state bytes and a small overhead) rings
      return 5 * ((DedupJob) job(false)).deduplicator().sizing().stateBytesPerKey() / 2;
    }

    @Override
    public SyntheticTraffic traffic(long units, long seed) {
      return SyntheticTraffic.builder().format(SyntheticTraffic.Format.EVENTS).seed(seed).count(units)
          .eventRate(EVENT_RATE).tenants(4).duplicateRatio(0.1).duplicateWindow(5_000).build();
    }

    @Override
    public byte[] marker(int partition, long timestamp) {
      return ("{\"tenant\":\"marker-" + partition + "\",\"id\":\"marker-" + partition + "\",\"ts\":" + timestamp + "}")
          .getBytes(StandardCharsets.UTF_8);
    }
  };

  /** Partitions of every input topic. */
  public static final int PARTITIONS = 4;
  /** Packets or events per second of event time. */
  public static final int EVENT_RATE = 20_000;
  /** Observation points of the packet traffic (scope keys 0..7; with parallelism 2, six of them share a subtask). */
  public static final int OBSERVATION_POINTS = 8;
  /** Flows per observation point the flow meter's tables are sized for. */
  public static final int FLOW_CAPACITY = 16_384;
  public static final Duration OUT_OF_ORDERNESS = Duration.ofMillis(100);
  /** How far after the traffic the end markers lie: past every window, timeout and horizon. */
  public static final Duration MARKER_AHEAD = Duration.ofHours(1);

  /** The job, unbounded (a live topic) or bounded (read to the end offsets at start, then flush and finish). */
  public JobLauncher job(boolean bounded) {
    return job(bounded, -1);
  }

  /**
   * The job with a heap budget per subtask for the structures its operator keeps live between checkpoints on
   * RocksDB ({@code --state-cache}; no effect on the heap backend); {@code stateCacheBytes < 0}: the job's default.
   */
  public abstract JobLauncher job(boolean bounded, long stateCacheBytes);

  /**
   * The {@code --state-cache} of the RocksDB runs at {@code scale}: about two scopes' structures (sizes measured, see
   * the constants), fewer than the scopes a subtask keys at parallelism 2 (six or two of the eight observation
   * points, two of the four tenants, plus the end markers' scopes), so that a RocksDB run writes structures back and
   * reads them again between checkpoints, not only at snapshots, which the default of 64 MiB (every scope's
   * structure) would not; except where {@link #evictsBetweenCheckpoints} says otherwise.
   */
  public abstract long stateCache(Scale scale);

  /**
   * Whether {@link #stateCache} at {@code scale} is smaller than the structures a subtask keys, so that a RocksDB run
   * evicts (writes back and reads again) between checkpoints; the tests assert it where it is (default: at every
   * scale).
   */
  public boolean evictsBetweenCheckpoints(Scale scale) {
    return true;
  }

  /** The input: {@code units} packets or events from {@code seed}. */
  public abstract SyntheticTraffic traffic(long units, long seed);

  /**
   * For a developer re-running one job's tests: {@code -Dlinerate.it.workloads=FLOW_METER,DEDUP} runs only those
   * (the others are reported as skipped). Unset (every build and CI): all run.
   */
  public static void assumeSelected(Workload w) {
    String selected = System.getProperty("linerate.it.workloads", "");
    org.junit.jupiter.api.Assumptions.assumeTrue(selected.isBlank() || List.of(selected.split(",")).contains(w.name()),
        () -> w + " not in linerate.it.workloads=" + selected);
  }

  /** Packets (heavy hitters, flow meter) or events (dedup) of the current scale. */
  public long units(Scale scale) {
    return this == DEDUP ? scale.events : scale.packets;
  }

  /** Event time (ms) just after {@code units} packets or events of {@link #traffic}. */
  public static long endOfTraffic(long units) {
    return SyntheticTraffic.DEFAULT_START + units * 1000 / EVENT_RATE + 1;
  }

  /**
   * An end marker for {@code partition}: one packet (of observation point 1000 + partition) or one event far after
   * the traffic, written last to every partition so the watermark passes every window, timeout and horizon of the
   * traffic: an unbounded run then reports all of it, as a bounded run would at its end.
   */
  public byte[] marker(int partition, long timestamp) {
    PacketBatch b = new PacketBatch(1000 + partition);
    b.addIpv4(timestamp, 0x0A630000 + partition, 0x0A630100, 1, 2, 17, 0, 64);
    return PacketBatchCodec.encode(b);
  }

  /** Topics a run of this job writes: the output (reports and alerts, flows, uniques and duplicates) and dead letters. */
  public List<String> outputTopics(JobTopics topics) {
    return List.of(topics.output(), topics.deadLetter());
  }

  private static SyntheticTraffic.Builder packets(long units, long seed) {
    return SyntheticTraffic.builder().format(SyntheticTraffic.Format.PACKETS).seed(seed).count(units)
        .eventRate(EVENT_RATE).flows(10_000).skew(1.1).observationPoints(OBSERVATION_POINTS).batchSize(64);
  }
}
