package io.linerate.sketches.hotpath;

import static org.assertj.core.api.Assertions.assertThat;

import io.linerate.sketches.bloom.BalancedBloomFilter;
import io.linerate.sketches.bloom.BlockedBloomFilter;
import io.linerate.sketches.bloom.BloomFilter;
import io.linerate.sketches.bloom.CountingBloomFilter;
import io.linerate.sketches.bloom.PartitionedBloomFilter;
import io.linerate.sketches.bloom.SplitBlockBloomFilter;
import io.linerate.sketches.bloom.StandardBloomFilter;
import io.linerate.sketches.flowtable.FlowTable;
import io.linerate.sketches.flowtable.InsertionScheme;
import io.linerate.sketches.frequency.BlockedCountMinSketch;
import io.linerate.sketches.frequency.CountMinSketch;
import io.linerate.sketches.frequency.RowIndexing;
import io.linerate.sketches.hash.FiveTuple;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The standard: "one hash per item". Counts the hash4j calls of the structure's own hasher. */
class HashOncePerItemTest {

    static final int N = 20_000;
    static final byte[] BYTES = new byte[4096];

    static {
        new java.util.SplittableRandom(3).nextBytes(BYTES);
    }

    static String label(Object o) {
        return o.getClass().getSimpleName();
    }

    @Test
    void bloomFiltersHashOncePerPutAndQuery() {
        List<BloomFilter> filters = List.of(StandardBloomFilter.create(N, 0.01, 9),
                PartitionedBloomFilter.create(N, 0.01, 9), BlockedBloomFilter.create(N, 0.01, 9),
                SplitBlockBloomFilter.create(N, 0.01, 9), BalancedBloomFilter.create(N, 0.01, 9),
                CountingBloomFilter.create(N, 0.01, 9));
        for (BloomFilter f : filters) {
            CountingHasher c = CountingHasher.install(f.hasher());
            for (int i = 0; i < N; i++) {
                f.put(i * 31L);
                f.mightContain(i * 17L);
                f.put(BYTES, i & 1023, 11);
                f.mightContain(BYTES, i & 1023, 12);
                f.put("k" + i);
                f.mightContain(FiveTuple.ipv4(i, ~i, 1, 2, 6));
            }
            assertThat(c.calls).as(label(f) + " hashes per operation").isEqualTo(6L * N);
        }
    }

    @Test
    void bloomFilterBatchesHashOncePerItem() {
        // not the blocked and split-block filters: their batches hash each item twice on purpose (BitArrayFilter's
        // touchLines: "measured cheaper than keeping the hashes in an array")
        List<BloomFilter> filters = List.of(StandardBloomFilter.create(N, 0.01, 9),
                PartitionedBloomFilter.create(N, 0.01, 9), CountingBloomFilter.create(N, 0.01, 9));
        long[] items = new long[N];
        for (int i = 0; i < N; i++) {
            items[i] = i * 0x9E3779B97F4A7C15L;
        }
        for (BloomFilter f : filters) {
            CountingHasher c = CountingHasher.install(f.hasher());
            f.putAll(items, 0, N);
            f.mightContainAll(items, 0, N, new boolean[N]);
            assertThat(c.calls).as(label(f) + " hashes per batched item").isEqualTo(2L * N);
        }
    }

    @Test
    void countMinSketchesHashOncePerUpdateAndQuery() {
        for (RowIndexing indexing : RowIndexing.values()) {
            for (boolean cu : new boolean[] {false, true}) {
                CountMinSketch cm = CountMinSketch.withShape(1009, 4, 9, indexing, cu);
                CountingHasher c = CountingHasher.install(cm.hasher());
                for (int i = 0; i < N; i++) {
                    cm.update(i * 31L, 1);
                    cm.estimate(i * 31L);
                    cm.update(BYTES, i & 1023, 11, 1);
                    cm.update("k" + i, 1);
                    cm.update(FiveTuple.ipv4(i, ~i, 1, 2, 6), 1);
                }
                assertThat(c.calls).as(indexing + " " + cu).isEqualTo(5L * N);
            }
        }
        BlockedCountMinSketch b = BlockedCountMinSketch.withBlocks(1024, 9);
        CountingHasher c = CountingHasher.install(b.hasher());
        for (int i = 0; i < N; i++) {
            b.update(i * 31L, 1);
            b.estimate(i * 31L);
            b.update(BYTES, i & 1023, 11, 1);
            b.estimate("k" + i);
        }
        assertThat(c.calls).isEqualTo(4L * N);
    }

    // Space-Saving and the CM-heap re-hash stored keys when a full tracker replaces its lightest item (the evicted
    // key, and the index entries the backward-shift deletion moves): about 4 hashes per update of a new item for
    // Space-Saving at capacity 1,000, documented in docs/BENCHMARKS.md (heavy hitters) as the price of not storing
    // a hash per counter. No test here asserts one hash for them.

    /** Packets of flows already in the table: one hash each, whatever the insertion scheme. */
    @Test
    void flowTableHashesOncePerPacketOfAnExistingFlow() {
        for (InsertionScheme scheme : InsertionScheme.values()) {
            FlowTable t = FlowTable.builder().capacity(4096).scheme(scheme).seed(9).build();
            for (int f = 0; f < 3000; f++) {
                t.updateIpv4(f, ~f, 1000, 80, 6, 0, 60, 0);
            }
            CountingHasher c = CountingHasher.install(ItemHasherOf.flowTable(t));
            for (int i = 0; i < N; i++) {
                int f = i % 3000;
                t.updateIpv4(f, ~f, 1000, 80, 6, 0, 60, 1);
            }
            assertThat(c.calls).as(scheme.toString()).isEqualTo(N);
        }
    }

    /** A new flow that moves an occupant (Extreme Second Chance) hashes each item it examines once. */
    @Test
    void flowTableInsertionHashesNoItemTwice() {
        for (InsertionScheme scheme : InsertionScheme.values()) {
            FlowTable t = FlowTable.builder().capacity(2048).scheme(scheme).seed(9).build();
            CountingHasher c = CountingHasher.install(ItemHasherOf.flowTable(t));
            int repeated = 0;
            for (int f = 0; f < 1900; f++) {
                c.recorded = new java.util.ArrayList<>();
                t.updateIpv4(f * 0x9E3779B9, f, 1000 + (f & 0xFFF), 80, 6, 0, 60, 0);
                repeated += c.recorded.size() - new java.util.HashSet<>(c.recorded).size();
            }
            assertThat(repeated).as(scheme + ": items hashed a second time within one update").isZero();
        }
    }
}
