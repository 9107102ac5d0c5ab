package io.linerate.flink.serializers;

import io.linerate.sketches.bloom.BalancedBloomFilter;
import io.linerate.sketches.bloom.BlockedBloomFilter;
import io.linerate.sketches.bloom.BloomFilter;
import io.linerate.sketches.bloom.CountingBloomFilter;
import io.linerate.sketches.bloom.PartitionedBloomFilter;
import io.linerate.sketches.bloom.SplitBlockBloomFilter;
import io.linerate.sketches.bloom.StandardBloomFilter;
import io.linerate.sketches.flowtable.FlowKeyFormat;
import io.linerate.sketches.flowtable.FlowTable;
import io.linerate.sketches.frequency.BlockedCountMinSketch;
import io.linerate.sketches.frequency.CountMinHeap;
import io.linerate.sketches.frequency.CountMinSketch;
import io.linerate.sketches.frequency.KeyKind;
import io.linerate.sketches.frequency.RowIndexing;
import io.linerate.sketches.frequency.SpaceSaving;
import io.linerate.sketches.hash.FiveTuple;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.List;
import java.util.SplittableRandom;
import java.util.function.Supplier;

/**
 * The serializer-snapshot fixtures of this module ({@link SnapshotFixture}): every structure's serializer with the
 * shape its structure records ({@code expecting}, as operators configure them), and the Count-Min serializer with an
 * unspecified shape (what {@code CountMinSketchTypeInfo} gives the Count-Min operators). Each value is built from
 * fixed seeds and filled well below capacity, so it is non-trivial but a few KB.
 */
final class SerializerFixtures {

    private SerializerFixtures() {
    }

    /** Fixed seed of the items inserted; each structure has its own hash seed as well. */
    static final long ITEMS_SEED = 20261126L;

    static List<SnapshotFixture<?>> all() {
        return List.of(
                image("standard-bloom", () -> bloom(StandardBloomFilter.withBits(4096, 5, 11), 300),
                        StandardBloomFilterSerializer::expecting),
                image("partitioned-bloom", () -> bloom(PartitionedBloomFilter.withBits(4096, 4, 12), 300),
                        PartitionedBloomFilterSerializer::expecting),
                image("blocked-bloom", () -> bloom(BlockedBloomFilter.withBits(8192, 6, 13, 512), 500),
                        BlockedBloomFilterSerializer::expecting),
                image("split-block-bloom", () -> bloom(SplitBlockBloomFilter.withBits(8192, 14), 500),
                        SplitBlockBloomFilterSerializer::expecting),
                image("balanced-bloom", () -> bloom(BalancedBloomFilter.create(1000, 0.01, 15), 600),
                        BalancedBloomFilterSerializer::expecting),
                image("counting-bloom", SerializerFixtures::countingBloom, CountingBloomFilterSerializer::expecting),
                image("count-min", SerializerFixtures::countMin, CountMinSketchSerializer::expecting),
                SnapshotFixture.of("count-min-unspecified-shape", CountMinSketchSerializer.INSTANCE,
                        SerializerFixtures::countMin, s -> hex(s.toByteArray())),
                image("blocked-count-min", SerializerFixtures::blockedCountMin,
                        BlockedCountMinSketchSerializer::expecting),
                image("space-saving", SerializerFixtures::spaceSaving, SpaceSavingSerializer::expecting),
                image("count-min-heap", SerializerFixtures::countMinHeap, CountMinHeapSerializer::expecting),
                image("flow-table", SerializerFixtures::flowTable, FlowTableSerializer::expecting),
                SnapshotFixture.of("five-tuple", FiveTupleSerializer.INSTANCE,
                        () -> io.linerate.sketches.hash.FiveTuple.ipv6(0x20010DB800000000L, 1, 0x20010DB800000000L, 2,
                                40000, 443, 6), Object::toString));
    }

    private interface Expecting<T> {
        ImageSerializer<T> of(T prototype);
    }

    /** A fixture of a structure compared by its byte image, its serializer expecting the value's own shape. */
    private static <T> SnapshotFixture<T> image(String name, Supplier<T> value, Expecting<T> serializer) {
        ImageSerializer<T> s = serializer.of(value.get());
        return SnapshotFixture.of(name, s, value, v -> hex(s.toImage(v)));
    }

    static String hex(byte[] bytes) {
        return HexFormat.of().formatHex(bytes);
    }

    private static <F extends BloomFilter> F bloom(F f, int items) {
        SplittableRandom r = new SplittableRandom(ITEMS_SEED);
        for (int i = 0; i < items; i++) {
            f.put(r.nextLong());
        }
        return f;
    }

    private static CountingBloomFilter countingBloom() {
        CountingBloomFilter f = bloom(CountingBloomFilter.withCounters(2048, 4, 4, 16), 200);
        SplittableRandom r = new SplittableRandom(ITEMS_SEED);
        for (int i = 0; i < 50; i++) {
            f.remove(r.nextLong()); // the first 50 of the 200 inserted
        }
        return f;
    }

    private static CountMinSketch countMin() {
        CountMinSketch s = CountMinSketch.withShape(128, 4, 17, RowIndexing.FULL_WIDTH, true);
        SplittableRandom r = new SplittableRandom(ITEMS_SEED);
        for (int i = 0; i < 2000; i++) {
            s.update(r.nextInt(300), 1 + r.nextInt(1500));
        }
        return s;
    }

    /** 64 blocks (4 KiB of counters), the Count-Min fixture's stream. */
    private static BlockedCountMinSketch blockedCountMin() {
        BlockedCountMinSketch s = BlockedCountMinSketch.withBlocks(64, 21);
        SplittableRandom r = new SplittableRandom(ITEMS_SEED);
        for (int i = 0; i < 2000; i++) {
            s.update(r.nextInt(300), 1 + r.nextInt(1500));
        }
        return s;
    }

    /** Five-tuple keys, IPv4 and IPv6, a skewed stream so that the tracker's capacity is exceeded. */
    private static SpaceSaving spaceSaving() {
        SpaceSaving s = SpaceSaving.withCapacity(KeyKind.fiveTuples(), 32, 18);
        SplittableRandom r = new SplittableRandom(ITEMS_SEED);
        for (int i = 0; i < 1500; i++) {
            s.update(tuple(skewed(r, 100)), 40 + r.nextInt(1460));
        }
        return s;
    }

    /** Byte-string keys up to 24 bytes. */
    private static CountMinHeap countMinHeap() {
        // FULL_WIDTH, the row indexing of create() when the v1 snapshot fixture was committed
        CountMinHeap h = CountMinHeap.over(KeyKind.bytes(24), 16,
                CountMinSketch.withShape(64, 3, 19, RowIndexing.FULL_WIDTH, true));
        SplittableRandom r = new SplittableRandom(ITEMS_SEED);
        for (int i = 0; i < 1500; i++) {
            byte[] key = ("host-" + skewed(r, 80) + ".example").getBytes(StandardCharsets.US_ASCII);
            h.update(key, 0, key.length, 1 + r.nextInt(10));
        }
        return h;
    }

    /** Live flows of IPv4 and IPv6 keys in a small dual-format table. */
    private static FlowTable flowTable() {
        FlowTable t = FlowTable.builder().capacity(48).keyFormat(FlowKeyFormat.IPV4_AND_IPV6).seed(20)
                .idleTimeout(60_000).activeTimeout(600_000).build();
        SplittableRandom r = new SplittableRandom(ITEMS_SEED);
        long now = 1_700_000_000_000L;
        for (int i = 0; i < 300; i++) {
            now += r.nextInt(20);
            t.update(tuple(r.nextInt(30)), i % 7 == 0 ? 0x02 : 0x10, 40 + r.nextInt(1460), now);
        }
        return t;
    }

    /** Flow {@code i}: even numbers IPv4, odd numbers IPv6. */
    static FiveTuple tuple(int i) {
        if (i % 2 == 0) {
            return FiveTuple.ipv4(0x0A000000 + i, 0xC0A80001, 10_000 + i, 443, 6);
        }
        return FiveTuple.ipv6(0x20010DB800000000L, i, 0x20010DB800000000L, 0xFFFF, 20_000 + i, 53, 17);
    }

    /** A skewed draw in [0, n): small values far more often. */
    static int skewed(SplittableRandom r, int n) {
        double u = r.nextDouble();
        return (int) (n * u * u * u);
    }
}
