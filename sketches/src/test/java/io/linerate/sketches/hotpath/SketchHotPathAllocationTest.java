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

import io.linerate.sketches.frequency.BlockedCountMinSketch;
import io.linerate.sketches.frequency.CountMinHeap;
import io.linerate.sketches.frequency.CountMinSketch;
import io.linerate.sketches.frequency.HeavyHitters;
import io.linerate.sketches.frequency.KeyKind;
import io.linerate.sketches.frequency.RowIndexing;
import io.linerate.sketches.frequency.SpaceSaving;
import io.linerate.sketches.hash.FiveTuple;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/** The standard: "Hot paths: no allocation per item". Bytes per item of each per-item path, after warm-up. */
class SketchHotPathAllocationTest {

    /**
     * Items per measured run. A path that allocates for every item shows at least 16 bytes/item (the smallest
     * object) at any n, so n decides only how far once-per-run allocations are diluted: at 50,000 one such object
     * of up to 50 KB still stays under the 1 byte/item bound. (200,000 took 26 of this module's test seconds.)
     */
    static final int N = 50_000;
    static final int KEYS = 1 << 12;
    static final long[] LONGS = new long[KEYS];
    static final byte[] BYTES = new byte[1 << 16];
    static final String[] STRINGS = new String[KEYS];
    static final StringBuilder BUILDER = new StringBuilder("flow-0000000000");
    static final FiveTuple[] TUPLES = new FiveTuple[KEYS];
    static final FiveTuple[] TUPLES6 = new FiveTuple[KEYS];
    static long sink;

    static {
        SplittableRandom r = new SplittableRandom(7);
        r.nextBytes(BYTES);
        for (int i = 0; i < KEYS; i++) {
            LONGS[i] = r.nextLong();
            STRINGS[i] = "item-" + r.nextInt();
            TUPLES[i] = FiveTuple.ipv4(r.nextInt(), r.nextInt(), r.nextInt(65536), r.nextInt(65536), 6);
            TUPLES6[i] = FiveTuple.ipv6(r.nextLong(), r.nextLong(), r.nextLong(), r.nextLong(), r.nextInt(65536),
                    r.nextInt(65536), 17);
        }
    }

    static int off(int i) {
        return (i * 1021) & 0xFF00;
    }

    record Case(String name, Alloc.Loop loop) {
    }

    static List<Case> bloomCases(String name, Supplier<BloomFilter> make) {
        List<Case> cases = new ArrayList<>();
        BloomFilter f = make.get();
        cases.add(new Case(name + ".put(h1,h2)", n -> {
            for (int i = 0; i < n; i++) {
                long h = LONGS[i & (KEYS - 1)] + i;
                f.put(h, h * 0x9E3779B97F4A7C15L);
            }
        }));
        cases.add(new Case(name + ".mightContain(h1,h2)", n -> {
            int c = 0;
            for (int i = 0; i < n; i++) {
                long h = LONGS[i & (KEYS - 1)] + i;
                c += f.mightContain(h, h * 0x9E3779B97F4A7C15L) ? 1 : 0;
            }
            sink += c;
        }));
        cases.add(new Case(name + ".put(long)", n -> {
            for (int i = 0; i < n; i++) {
                f.put(LONGS[i & (KEYS - 1)] + i);
            }
        }));
        cases.add(new Case(name + ".mightContain(long)", n -> {
            int c = 0;
            for (int i = 0; i < n; i++) {
                c += f.mightContain(LONGS[i & (KEYS - 1)] + i) ? 1 : 0;
            }
            sink += c;
        }));
        cases.add(new Case(name + ".put(byte[],off,len)", n -> {
            for (int i = 0; i < n; i++) {
                f.put(BYTES, off(i) + (i & 63), 13);
            }
        }));
        cases.add(new Case(name + ".mightContain(byte[],off,len)", n -> {
            int c = 0;
            for (int i = 0; i < n; i++) {
                c += f.mightContain(BYTES, off(i) + (i & 63), 13) ? 1 : 0;
            }
            sink += c;
        }));
        cases.add(new Case(name + ".put(String)", n -> {
            for (int i = 0; i < n; i++) {
                f.put(STRINGS[i & (KEYS - 1)]);
            }
        }));
        cases.add(new Case(name + ".mightContain(StringBuilder)", n -> {
            int c = 0;
            for (int i = 0; i < n; i++) {
                BUILDER.setCharAt(5 + (i & 7), (char) ('0' + (i & 15)));
                c += f.mightContain(BUILDER) ? 1 : 0;
            }
            sink += c;
        }));
        cases.add(new Case(name + ".put(FiveTuple v4)", n -> {
            for (int i = 0; i < n; i++) {
                f.put(TUPLES[i & (KEYS - 1)]);
            }
        }));
        cases.add(new Case(name + ".mightContain(FiveTuple v6)", n -> {
            int c = 0;
            for (int i = 0; i < n; i++) {
                c += f.mightContain(TUPLES6[i & (KEYS - 1)]) ? 1 : 0;
            }
            sink += c;
        }));
        long[] batch = new long[256];
        boolean[] results = new boolean[256];
        cases.add(new Case(name + ".putAll/mightContainAll", n -> {
            for (int i = 0; i < n; i += 256) {
                for (int j = 0; j < 256; j++) {
                    batch[j] = LONGS[(i + j) & (KEYS - 1)] + i;
                }
                sink += f.putAll(batch, 0, 256) + f.mightContainAll(batch, 0, 256, results);
            }
        }));
        return cases;
    }

    static List<Case> heavyHitterCases(String name, Supplier<HeavyHitters> longs, Supplier<HeavyHitters> tuples,
                                       Supplier<HeavyHitters> bytes) {
        List<Case> cases = new ArrayList<>();
        HeavyHitters l = longs.get();
        cases.add(new Case(name + ".update(long) many distinct", n -> {
            for (int i = 0; i < n; i++) {
                l.update(i * 0x9E3779B97F4A7C15L, 1);
            }
        }));
        HeavyHitters l2 = longs.get();
        cases.add(new Case(name + ".update(long) few distinct", n -> {
            for (int i = 0; i < n; i++) {
                l2.update(LONGS[i & 255], 1);
            }
        }));
        HeavyHitters t = tuples.get();
        cases.add(new Case(name + ".update(FiveTuple)", n -> {
            for (int i = 0; i < n; i++) {
                t.update((i & 1) == 0 ? TUPLES[i & (KEYS - 1)] : TUPLES6[i & (KEYS - 1)], 1);
            }
        }));
        HeavyHitters b = bytes.get();
        cases.add(new Case(name + ".update(byte[],off,len)", n -> {
            for (int i = 0; i < n; i++) {
                b.update(BYTES, off(i) + (i & 127), 13, 1);
            }
        }));
        return cases;
    }

    static List<Case> cases() {
        List<Case> cases = new ArrayList<>();
        cases.addAll(bloomCases("Standard", () -> StandardBloomFilter.create(1 << 20, 0.01, 11)));
        cases.addAll(bloomCases("Partitioned", () -> PartitionedBloomFilter.create(1 << 20, 0.01, 11)));
        cases.addAll(bloomCases("Blocked", () -> BlockedBloomFilter.create(1 << 20, 0.01, 11)));
        cases.addAll(bloomCases("Blocked k>7", () -> BlockedBloomFilter.create(1 << 20, 1e-5, 11)));
        cases.addAll(bloomCases("SplitBlock", () -> SplitBlockBloomFilter.create(1 << 20, 0.01, 11)));
        cases.addAll(bloomCases("Balanced", () -> BalancedBloomFilter.create(1 << 20, 0.01, 11)));
        cases.addAll(bloomCases("Counting", () -> CountingBloomFilter.create(1 << 20, 0.01, 11)));
        CountingBloomFilter counting = CountingBloomFilter.create(1 << 20, 0.01, 11);
        cases.add(new Case("Counting.put/remove/count", n -> {
            for (int i = 0; i < n; i++) {
                long k = LONGS[i & (KEYS - 1)];
                counting.put(k);
                sink += counting.count(k);
                counting.remove(k);
                counting.remove(STRINGS[i & (KEYS - 1)]);
                counting.remove(BYTES, off(i), 9);
                counting.remove(TUPLES[i & (KEYS - 1)]);
            }
        }));
        for (RowIndexing indexing : RowIndexing.values()) {
            for (boolean conservative : new boolean[] {false, true}) {
                CountMinSketch cm = CountMinSketch.withShape(2003, 5, 3, indexing, conservative);
                String name = "CountMin[" + indexing + (conservative ? ",cu" : "") + "]";
                cases.add(new Case(name + ".update/estimate(long)", n -> {
                    for (int i = 0; i < n; i++) {
                        long k = LONGS[i & (KEYS - 1)];
                        cm.update(k, 1);
                        sink += cm.estimate(k);
                    }
                }));
                cases.add(new Case(name + ".update/estimate(byte[],CharSequence,FiveTuple)", n -> {
                    for (int i = 0; i < n; i++) {
                        cm.update(BYTES, off(i), 17, 2);
                        sink += cm.estimate(BYTES, off(i), 17);
                        cm.update(STRINGS[i & (KEYS - 1)], 1);
                        sink += cm.estimate(BUILDER);
                        cm.update(TUPLES6[i & (KEYS - 1)], 1);
                        sink += cm.estimate(TUPLES[i & (KEYS - 1)]);
                        sink += cm.updateAndEstimate(i, i * 31L, 1);
                    }
                }));
            }
        }
        BlockedCountMinSketch bcm = BlockedCountMinSketch.withBlocks(4096, 3);
        cases.add(new Case("BlockedCountMin.update/estimate(all keys)", n -> {
            for (int i = 0; i < n; i++) {
                long k = LONGS[i & (KEYS - 1)];
                bcm.update(k, 1);
                sink += bcm.estimate(k);
                bcm.update(BYTES, off(i), 17, 2);
                sink += bcm.estimate(BYTES, off(i), 17);
                bcm.update(STRINGS[i & (KEYS - 1)], 1);
                sink += bcm.estimate(BUILDER);
                bcm.update(TUPLES6[i & (KEYS - 1)], 1);
                sink += bcm.estimate(TUPLES[i & (KEYS - 1)]);
            }
        }));
        cases.addAll(heavyHitterCases("SpaceSaving",
                () -> SpaceSaving.withCapacity(KeyKind.longs(), 1000, 3),
                () -> SpaceSaving.withCapacity(KeyKind.fiveTuples(), 1000, 3),
                () -> SpaceSaving.withCapacity(KeyKind.bytes(32), 1000, 3)));
        cases.addAll(heavyHitterCases("SpaceSaving(read from image)",
                () -> SpaceSaving.fromByteArray(SpaceSaving.withCapacity(KeyKind.longs(), 1000, 3).toByteArray()),
                () -> SpaceSaving.fromByteArray(SpaceSaving.withCapacity(KeyKind.fiveTuples(), 1000, 3).toByteArray()),
                () -> SpaceSaving.fromByteArray(SpaceSaving.withCapacity(KeyKind.bytes(32), 1000, 3).toByteArray())));
        cases.addAll(heavyHitterCases("CountMinHeap",
                () -> CountMinHeap.create(KeyKind.longs(), 500, 2003, 4, true, 3),
                () -> CountMinHeap.create(KeyKind.fiveTuples(), 500, 2003, 4, true, 3),
                () -> CountMinHeap.create(KeyKind.bytes(32), 500, 2003, 4, true, 3)));
        cases.addAll(FlowTableCases.cases());
        return cases;
    }

    @TestFactory
    Stream<DynamicTest> noAllocationPerItem() {
        return cases().stream().map(c -> DynamicTest.dynamicTest(c.name(), () -> {
            double perItem = Alloc.perItem(c.loop(), N);
            System.out.printf(Locale.ROOT, "%-70s %8.3f bytes/item%n", c.name(), perItem);
            assertThat(perItem).as(c.name() + ": bytes allocated per item").isLessThan(1.0);
        }));
    }
}
