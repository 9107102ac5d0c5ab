package io.linerate.it;

import java.nio.charset.StandardCharsets;

import io.linerate.jobs.feed.SyntheticTraffic;
import io.linerate.jobs.feed.TrafficSource;
import io.linerate.jobs.format.PacketBatch;
import io.linerate.jobs.format.PacketBatchCodec;
import io.linerate.sketches.flowtable.FlowTable;
import io.linerate.sketches.hash.DoubleHashing;
import io.linerate.sketches.hash.ItemHasher;

/**
 * Flows crafted against a flow table whose seed the attacker knows: IPv4 TCP SYNs {@code src:40000 → 10.0.0.1:80}
 * whose source addresses are found by brute force so that every flow hashes to the SAME bucket of the table's first
 * sub-table. The bucket of a flow in sub-table i is {@code reduce(mix(h1 + i·h2), m_i)} of its 128-bit hash
 * ({@link ItemHasher#hashIpv4}, {@link ItemHasher#h2}; {@code MultilevelTable.bucketSlot}); for sub-table 1 that is
 * {@code reduce(mix(h1), m_1)}, computed here with the sketches' own public hashing classes and the table's own
 * layout ({@link FlowTable#layout()}). One candidate in m_1 hits (m_1 = ⌊0.4694·n⌋ buckets for second chance), so
 * {@code count} flows cost about {@code count · m_1} hashes: 8,192 flows against n = 4,096 (1,922 buckets) are some
 * 16M XXH3 hashes, well under a second. {@link #check} confirms the crafting with the table's own placement.
 */
public final class CollidingFlows {

  public static final int DST = 0x0A000001; // 10.0.0.1
  public static final int SRC_PORT = 40_000;
  public static final int DST_PORT = 80;
  public static final int TCP = 6;

  private CollidingFlows() {
  }

  /** {@code count} source addresses whose flows share one first-level bucket of {@code prototype} (its seed). */
  public static int[] craft(FlowTable prototype, int count) {
    ItemHasher hasher = ItemHasher.seeded(prototype.seed());
    int buckets = prototype.layout().buckets(0);
    int[] out = new int[count];
    long target = -1;
    int found = 0;
    for (int src = 0x64400000; found < count; src++) { // from 100.64.0.0
      long bucket = DoubleHashing.reduce(DoubleHashing.mix(hasher.hashIpv4(src, DST, SRC_PORT, DST_PORT, TCP)), buckets);
      if (target < 0) {
        target = bucket;
      }
      if (bucket == target) {
        out[found++] = src;
      }
    }
    return out;
  }

  /**
   * Inserts the flows once each into a fresh table built like {@code prototype} (no timeouts) and returns how many
   * of them the first sub-table holds: 1 if they all share one of its (one-slot) buckets, about as many as there
   * are flows (up to its buckets) if they scatter (another seed).
   */
  public static int check(FlowTable.Builder like, int[] sources) {
    FlowTable t = like.idleTimeout(Long.MAX_VALUE).activeTimeout(Long.MAX_VALUE).exporter(r -> { }).build();
    long ts = 0;
    for (int src : sources) {
      t.updateIpv4(src, DST, SRC_PORT, DST_PORT, TCP, 0x02, 60, ts++);
    }
    return (int) Math.round(t.load(0) * t.layout().buckets(0) * t.layout().bucketCapacity());
  }

  /**
   * The attack traffic: {@code packets} SYNs in batches of {@code batchSize}, round-robin over
   * {@code observationPoints} observation points (keyed like {@link SyntheticTraffic}'s, decimal text), each
   * observation point cycling through all {@code sources} in order (so with more sources than the table holds, each
   * new packet meets a full neighbourhood), event time advancing {@code eventRate} packets per second.
   */
  public static TrafficSource source(int[] sources, long packets, int observationPoints, int batchSize,
      double eventRate) {
    byte[][] keys = new byte[observationPoints][];
    for (int op = 0; op < observationPoints; op++) {
      keys[op] = Integer.toString(op).getBytes(StandardCharsets.UTF_8);
    }
    long[] next = new long[observationPoints];
    PacketBatch batch = new PacketBatch(0, batchSize);
    return new TrafficSource() {
      long written;
      long batches;

      @Override
      public Record next() {
        if (written >= packets) {
          return null;
        }
        int n = (int) Math.min(batchSize, packets - written);
        int op = (int) (batches++ % observationPoints);
        batch.clear(op);
        for (int i = 0; i < n; i++) {
          long ts = SyntheticTraffic.DEFAULT_START + (long) (written++ * 1000.0 / eventRate);
          int src = sources[(int) (next[op]++ % sources.length)];
          batch.addIpv4(ts, src, DST, SRC_PORT, DST_PORT, TCP, 0x02, 60);
        }
        return new Record(keys[op], PacketBatchCodec.encode(batch), n);
      }
    };
  }
}
