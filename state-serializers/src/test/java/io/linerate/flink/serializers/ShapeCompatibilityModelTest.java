package io.linerate.flink.serializers;

import static org.assertj.core.api.Assertions.assertThat;

import io.linerate.sketches.bloom.BalancedBloomFilter;
import io.linerate.sketches.bloom.BalancedParameters;
import io.linerate.sketches.bloom.BlockedBloomFilter;
import io.linerate.sketches.bloom.BloomFilter;
import io.linerate.sketches.bloom.CountingBloomFilter;
import io.linerate.sketches.bloom.PartitionedBloomFilter;
import io.linerate.sketches.bloom.SplitBlockBloomFilter;
import io.linerate.sketches.bloom.StandardBloomFilter;
import io.linerate.sketches.flowtable.FlowKeyFormat;
import io.linerate.sketches.flowtable.FlowTable;
import io.linerate.sketches.flowtable.InsertionScheme;
import io.linerate.sketches.flowtable.OverflowPolicy;
import io.linerate.sketches.frequency.BlockedCountMinSketch;
import io.linerate.sketches.frequency.CountMinHeap;
import io.linerate.sketches.frequency.CountMinSketch;
import io.linerate.sketches.frequency.HeavyHitters;
import io.linerate.sketches.frequency.KeyKind;
import io.linerate.sketches.frequency.RowIndexing;
import io.linerate.sketches.frequency.SpaceSaving;
import io.linerate.sketches.hash.FiveTuple;
import io.linerate.sketches.hash.Probing;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.function.BiConsumer;
import java.util.function.Function;
import java.util.stream.Stream;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.common.typeutils.TypeSerializerSchemaCompatibility;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Model-based check of the serializer snapshots against STATE-FORMAT.md's "Compatibility on restore": pairs of
 * (old, new) configurations differing in random subsets of parameters; the old serializer's snapshot is written
 * and read back through Flink's versioned snapshot format, resolved by the new one, and the result and the named
 * fields compared with the documented shape table (fields derived from the configuration, not from
 * {@link Shapes}). Where it is compatible as is, the old structure's bytes are read by the new serializer and must
 * behave as the structure the new configuration builds.
 */
class ShapeCompatibilityModelTest {

    static final ClassLoader CL = ShapeCompatibilityModelTest.class.getClassLoader();

    /** A structure's configuration space and its documented shape. */
    record Model<T>(String name, Map<String, List<Object>> params, Function<Map<String, Object>, T> build,
                    Function<T, ImageSerializer<T>> expecting, ImageSerializer<T> unspecified,
                    BiConsumer<T, Random> fill, Function<T, byte[]> image,
                    Function<Map<String, Object>, LinkedHashMap<String, String>> docShape,
                    Set<String> behaviourOnly) {
        @Override
        public String toString() {
            return name;
        }
    }

    static LinkedHashMap<String, String> fields(Object... kv) {
        LinkedHashMap<String, String> m = new LinkedHashMap<>();
        for (int i = 0; i < kv.length; i += 2) {
            m.put((String) kv[i], String.valueOf(kv[i + 1]));
        }
        return m;
    }

    static void fillBloom(BloomFilter f, Random r) {
        for (int i = 0; i < 300; i++) {
            f.put(r.nextLong());
        }
    }

    static void fillHh(HeavyHitters h, Random r) {
        for (int i = 0; i < 500; i++) {
            long x = r.nextInt(50);
            long w = 1 + r.nextInt(5);
            byte[] b = new byte[1 + (int) (x % 12)];
            Arrays.fill(b, (byte) x);
            try {
                h.update(x, w);
            } catch (IllegalArgumentException notLongs) {
                try {
                    h.update(FiveTuple.ipv4((int) x, 7, 80, 443, 6), w);
                } catch (IllegalArgumentException notTuples) {
                    h.update(b, 0, b.length, w);
                }
            }
        }
    }

    static Map<String, List<Object>> params(Object... kv) {
        Map<String, List<Object>> m = new LinkedHashMap<>();
        for (int i = 0; i < kv.length; i += 2) {
            m.put((String) kv[i], (List<Object>) kv[i + 1]);
        }
        return m;
    }

    static Stream<Model<?>> models() {
        List<Model<?>> out = new ArrayList<>();
        out.add(new Model<StandardBloomFilter>("standard",
                params("bits", List.of(4096L, 8192L, 1000L), "k", List.of(3, 5, 7), "seed", List.of(1L, 2L, -7L),
                        "probing", List.of((Object[]) Probing.values())),
                c -> StandardBloomFilter.withBits((Long) c.get("bits"), (Integer) c.get("k"), (Long) c.get("seed"),
                        (Probing) c.get("probing")),
                StandardBloomFilterSerializer::expecting, StandardBloomFilterSerializer.INSTANCE,
                ShapeCompatibilityModelTest::fillBloom, StandardBloomFilter::toByteArray,
                c -> fields("bits", c.get("bits"), "hashCount", c.get("k"), "seed", c.get("seed"), "probing",
                        c.get("probing")), Set.of()));
        out.add(new Model<PartitionedBloomFilter>("partitioned",
                params("bits", List.of(4096L, 8192L), "k", List.of(3, 5, 7), "seed", List.of(1L, 2L)),
                c -> PartitionedBloomFilter.withBits((Long) c.get("bits"), (Integer) c.get("k"), (Long) c.get("seed")),
                PartitionedBloomFilterSerializer::expecting, PartitionedBloomFilterSerializer.INSTANCE,
                ShapeCompatibilityModelTest::fillBloom, PartitionedBloomFilter::toByteArray,
                c -> {
                    PartitionedBloomFilter f = PartitionedBloomFilter.withBits((Long) c.get("bits"),
                            (Integer) c.get("k"), (Long) c.get("seed"));
                    return fields("bits", f.bitSize(), "hashCount", c.get("k"), "seed", c.get("seed"),
                            "partitionBits", f.partitionBits());
                }, Set.of()));
        out.add(new Model<BlockedBloomFilter>("blocked",
                params("bits", List.of(8192L, 16384L), "k", List.of(4, 6, 8), "seed", List.of(1L, 2L),
                        "blockBits", List.of(64, 256, 512)),
                c -> BlockedBloomFilter.withBits((Long) c.get("bits"), (Integer) c.get("k"), (Long) c.get("seed"),
                        (Integer) c.get("blockBits")),
                BlockedBloomFilterSerializer::expecting, BlockedBloomFilterSerializer.INSTANCE,
                ShapeCompatibilityModelTest::fillBloom, BlockedBloomFilter::toByteArray,
                c -> fields("bits", c.get("bits"), "hashCount", c.get("k"), "seed", c.get("seed"), "blockBits",
                        c.get("blockBits")), Set.of()));
        out.add(new Model<SplitBlockBloomFilter>("split-block",
                params("bits", List.of(8192L, 16384L, 4096L), "seed", List.of(1L, 2L, 3L)),
                c -> SplitBlockBloomFilter.withBits((Long) c.get("bits"), (Long) c.get("seed")),
                SplitBlockBloomFilterSerializer::expecting, SplitBlockBloomFilterSerializer.INSTANCE,
                ShapeCompatibilityModelTest::fillBloom, SplitBlockBloomFilter::toByteArray,
                c -> fields("bits", c.get("bits"), "hashCount", 8, "seed", c.get("seed"), "blockBits", 512),
                Set.of()));
        out.add(new Model<BalancedBloomFilter>("balanced",
                params("blocks", List.of(30L, 60L), "blockBits", List.of(256, 512), "bpe", List.of(10.0, 16.0),
                        "budget", List.of(1.2, 1.5), "choices", List.of(2, 3), "seed", List.of(1L, 2L)),
                c -> BalancedBloomFilter.create(balanced(c), (Long) c.get("seed")),
                BalancedBloomFilterSerializer::expecting, BalancedBloomFilterSerializer.INSTANCE,
                ShapeCompatibilityModelTest::fillBloom, BalancedBloomFilter::toByteArray,
                c -> {
                    BalancedParameters p = balanced(c);
                    return fields("bits", p.blocks() * p.blockBits(), "hashCount", p.hashCount(), "seed",
                            c.get("seed"), "blockBits", p.blockBits(), "subtableBlocks",
                            Arrays.toString(p.subtableBlocks()), "threshold", p.threshold(), "coinProbability",
                            p.coinProbability(), "designCapacity", p.designCapacity(), "accessBudget",
                            p.accessBudget(), "overflowCapacity", p.overflowCapacity());
                }, Set.of()));
        out.add(new Model<CountingBloomFilter>("counting",
                params("counters", List.of(4096L, 5000L), "k", List.of(3, 4), "counterBits", List.of(2, 4, 8, 16),
                        "seed", List.of(1L, 9L)),
                c -> CountingBloomFilter.withCounters((Long) c.get("counters"), (Integer) c.get("k"),
                        (Integer) c.get("counterBits"), (Long) c.get("seed")),
                CountingBloomFilterSerializer::expecting, CountingBloomFilterSerializer.INSTANCE,
                ShapeCompatibilityModelTest::fillBloom, CountingBloomFilter::toByteArray,
                c -> fields("counters", c.get("counters"), "hashCount", c.get("k"), "counterBits",
                        c.get("counterBits"), "seed", c.get("seed")), Set.of()));
        out.add(new Model<CountMinSketch>("count-min",
                params("width", List.of(251, 509), "depth", List.of(2, 4), "seed", List.of(1L, 2L),
                        "indexing", List.of((Object[]) RowIndexing.values()), "conservative", List.of(false, true)),
                c -> CountMinSketch.withShape((Integer) c.get("width"), (Integer) c.get("depth"), (Long) c.get("seed"),
                        (RowIndexing) c.get("indexing"), (Boolean) c.get("conservative")),
                CountMinSketchSerializer::expecting, CountMinSketchSerializer.INSTANCE,
                (s, r) -> {
                    for (int i = 0; i < 500; i++) {
                        s.update(r.nextInt(100), 1 + r.nextInt(3));
                    }
                }, CountMinSketch::toByteArray,
                c -> fields("width", c.get("width"), "depth", c.get("depth"), "seed", c.get("seed"), "indexing",
                        c.get("indexing"), "conservative", c.get("conservative")), Set.of()));
        out.add(new Model<BlockedCountMinSketch>("blocked-count-min",
                params("blocks", List.of(64, 128, 1000), "seed", List.of(1L, 2L, 3L)),
                c -> BlockedCountMinSketch.withBlocks((Integer) c.get("blocks"), (Long) c.get("seed")),
                BlockedCountMinSketchSerializer::expecting, BlockedCountMinSketchSerializer.INSTANCE,
                (s, r) -> {
                    for (int i = 0; i < 500; i++) {
                        s.update(r.nextInt(100), 1 + r.nextInt(3));
                    }
                }, BlockedCountMinSketch::toByteArray,
                c -> fields("blocks", c.get("blocks"), "seed", c.get("seed")), Set.of()));
        List<Object> kinds = List.of("LONG", "FIVE_TUPLE", "BYTES(16)", "BYTES(24)");
        out.add(new Model<SpaceSaving>("space-saving",
                params("kind", kinds, "capacity", List.of(16, 32), "seed", List.of(1L, 2L)),
                c -> SpaceSaving.withCapacity(kind(c), (Integer) c.get("capacity"), (Long) c.get("seed")),
                SpaceSavingSerializer::expecting, SpaceSavingSerializer.INSTANCE,
                ShapeCompatibilityModelTest::fillHh, SpaceSaving::toByteArray,
                c -> fields("capacity", c.get("capacity"), "keyKind", kindId(c), "maxKeyBytes", maxBytes(c),
                        "seed", c.get("seed")), Set.of()));
        out.add(new Model<CountMinHeap>("count-min-heap",
                params("kind", kinds, "capacity", List.of(16, 32), "width", List.of(64, 128), "depth", List.of(2, 3),
                        "seed", List.of(1L, 2L), "indexing", List.of(RowIndexing.FULL_WIDTH, RowIndexing.MIXED_32),
                        "conservative", List.of(false, true)),
                c -> CountMinHeap.over(kind(c), (Integer) c.get("capacity"), CountMinSketch.withShape(
                        (Integer) c.get("width"), (Integer) c.get("depth"), (Long) c.get("seed"),
                        (RowIndexing) c.get("indexing"), (Boolean) c.get("conservative"))),
                CountMinHeapSerializer::expecting, CountMinHeapSerializer.INSTANCE,
                ShapeCompatibilityModelTest::fillHh, CountMinHeap::toByteArray,
                c -> fields("capacity", c.get("capacity"), "keyKind", kindId(c), "maxKeyBytes", maxBytes(c),
                        "width", c.get("width"), "depth", c.get("depth"), "seed", c.get("seed"), "indexing",
                        c.get("indexing"), "conservative", c.get("conservative")), Set.of()));
        out.add(new Model<FlowTable>("flow-table",
                params("capacity", List.of(64L, 100L), "scheme", List.of(InsertionScheme.STANDARD,
                                InsertionScheme.CONSERVATIVE, InsertionScheme.SECOND_CHANCE_2),
                        "stash", List.of(4, 8), "keyFormat", List.of((Object[]) FlowKeyFormat.values()),
                        "userSlots", List.of(0, 2), "seed", List.of(1L, 2L), "idle", List.of(100L, 200L),
                        "active", List.of(1000L, 5000L), "policy", List.of((Object[]) OverflowPolicy.values()),
                        "summary", List.of(false, true), "sweep", List.of(0, 4)),
                c -> flowTable(c).build(),
                FlowTableSerializer::expecting, FlowTableSerializer.INSTANCE,
                (t, r) -> {
                    for (int i = 0; i < 200; i++) {
                        t.update(FiveTuple.ipv4(r.nextInt(60), 1, 80, 443, 6), 0, 100, i);
                    }
                }, FlowTable::toByteArray,
                c -> {
                    FlowTable.Plan p = flowTable(c).plan();
                    return fields("scheme", c.get("scheme"), "levels", p.layout().levels(), "buckets",
                            Arrays.toString(p.layout().buckets()), "bucketCapacity", p.layout().bucketCapacity(),
                            "stashCapacity", c.get("stash"), "keyFormat", c.get("keyFormat"), "userSlots",
                            c.get("userSlots"), "capacity", c.get("capacity"), "seed", c.get("seed"));
                }, Set.of("idle", "active", "policy", "summary", "sweep")));
        return out.stream();
    }

    static FlowTable.Builder flowTable(Map<String, Object> c) {
        return FlowTable.builder().capacity((Long) c.get("capacity")).scheme((InsertionScheme) c.get("scheme"))
                .stashCapacity((Integer) c.get("stash")).keyFormat((FlowKeyFormat) c.get("keyFormat"))
                .userSlots((Integer) c.get("userSlots")).seed((Long) c.get("seed"))
                .idleTimeout((Long) c.get("idle")).activeTimeout((Long) c.get("active"))
                .overflowPolicy((OverflowPolicy) c.get("policy")).summary((Boolean) c.get("summary"))
                .sweepSlotsPerUpdate((Integer) c.get("sweep"));
    }

    static BalancedParameters balanced(Map<String, Object> c) {
        return BalancedParameters.of((Long) c.get("blocks"), (Integer) c.get("blockBits"), (Double) c.get("bpe"),
                (Double) c.get("budget"), (Integer) c.get("choices"));
    }

    static KeyKind kind(Map<String, Object> c) {
        return switch ((String) c.get("kind")) {
            case "LONG" -> KeyKind.longs();
            case "FIVE_TUPLE" -> KeyKind.fiveTuples();
            case "BYTES(16)" -> KeyKind.bytes(16);
            default -> KeyKind.bytes(24);
        };
    }

    /** The stored key-kind id of STATE-FORMAT.md's heavy-hitter key table. */
    static int kindId(Map<String, Object> c) {
        return switch ((String) c.get("kind")) {
            case "LONG" -> 0;
            case "FIVE_TUPLE" -> 1;
            default -> 2;
        };
    }

    /** "written as 8 and 40 for LONG and FIVE_TUPLE". */
    static int maxBytes(Map<String, Object> c) {
        return switch ((String) c.get("kind")) {
            case "LONG" -> 8;
            case "FIVE_TUPLE" -> 40;
            case "BYTES(16)" -> 16;
            default -> 24;
        };
    }

    static <T> TypeSerializerSnapshot<T> roundTrip(TypeSerializerSnapshot<T> s) throws IOException {
        DataOutputSerializer out = new DataOutputSerializer(64);
        TypeSerializerSnapshot.writeVersionedSnapshot(out, s);
        DataInputDeserializer in = new DataInputDeserializer(out.getCopyOfBuffer());
        TypeSerializerSnapshot<T> read = TypeSerializerSnapshot.readVersionedSnapshot(in, CL);
        assertThat(in.available()).isZero();
        return read;
    }

    static <T> byte[] bytesOf(TypeSerializer<T> s, T v) throws IOException {
        DataOutputSerializer out = new DataOutputSerializer(256);
        s.serialize(v, out);
        return out.getCopyOfBuffer();
    }

    static <T> T read(TypeSerializer<T> s, byte[] b) throws IOException {
        DataInputDeserializer in = new DataInputDeserializer(b);
        T v = s.deserialize(in);
        assertThat(in.available()).isZero();
        return v;
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("models")
    <T> void everyPairResolvesAsDocumented(Model<T> m) throws IOException {
        Random r = new Random(m.name().hashCode());
        List<String> names = new ArrayList<>(m.params().keySet());
        int compatible = 0;
        int incompatible = 0;
        for (int pair = 0; pair < 150; pair++) {
            Map<String, Object> oldC = new LinkedHashMap<>();
            for (String n : names) {
                List<Object> vs = m.params().get(n);
                oldC.put(n, vs.get(r.nextInt(vs.size())));
            }
            Map<String, Object> newC = new LinkedHashMap<>(oldC);
            int changes = pair % 4; // 0 (same), 1, 2 or 3 parameters changed
            for (int i = 0; i < changes; i++) {
                String n = names.get(r.nextInt(names.size()));
                List<Object> vs = m.params().get(n);
                newC.put(n, vs.get(r.nextInt(vs.size())));
            }
            T oldS;
            T newS;
            try {
                oldS = m.build().apply(oldC);
                newS = m.build().apply(newC);
            } catch (IllegalArgumentException e) {
                continue; // a combination the structure refuses (e.g. MOD_PRIME of a width that is not prime)
            }
            String what = m.name() + " " + oldC + " -> " + newC;
            LinkedHashMap<String, String> before = m.docShape().apply(oldC);
            LinkedHashMap<String, String> after = m.docShape().apply(newC);
            List<String> expected = new ArrayList<>();
            for (String f : before.keySet()) {
                if (!before.get(f).equals(after.get(f))) {
                    expected.add(f + ": " + before.get(f) + " -> " + after.get(f));
                }
            }

            ImageSerializer<T> oldSer = m.expecting().apply(oldS);
            ImageSerializer<T> newSer = m.expecting().apply(newS);
            assertThat(oldSer.expectedShape().fields()).as(what).isEqualTo(before);
            // hints on either side, equal, changed, added or dropped: never decisive
            if (r.nextBoolean()) {
                oldSer = withShape(oldSer, oldSer.expectedShape().withHint("expectedItems", r.nextInt(3)));
            }
            if (r.nextBoolean()) {
                newSer = withShape(newSer, newSer.expectedShape().withHint("expectedItems", r.nextInt(3)));
            }
            TypeSerializerSnapshot<T> restored = roundTrip(oldSer.snapshotConfiguration());
            assertThat(restored.getClass()).isEqualTo(oldSer.snapshotConfiguration().getClass());
            assertThat(restored.restoreSerializer()).as(what).isEqualTo(oldSer);
            TypeSerializerSnapshot<T> configured = newSer.snapshotConfiguration();
            TypeSerializerSchemaCompatibility<T> c = configured.resolveSchemaCompatibility(restored);
            String why = ((ImageSerializerSnapshot<T>) configured).incompatibilityFrom(restored);
            assertThat(why).as(what).isEqualTo(String.join(", ", expected));
            // either side unspecified: compatible as is
            assertThat(m.unspecified().snapshotConfiguration().resolveSchemaCompatibility(restored)
                    .isCompatibleAsIs()).as(what).isTrue();
            assertThat(configured.resolveSchemaCompatibility(roundTrip(m.unspecified().snapshotConfiguration()))
                    .isCompatibleAsIs()).as(what).isTrue();
            if (!expected.isEmpty()) {
                incompatible++;
                assertThat(c.isIncompatible()).as(what).isTrue();
                continue;
            }
            compatible++;
            assertThat(c.isCompatibleAsIs()).as(what).isTrue();
            // compatible as is: the new serializer reads the old state, which then behaves as the new configuration
            long seed = r.nextLong();
            m.fill().accept(oldS, new Random(seed));
            T readBack = read(newSer, bytesOf(restored.restoreSerializer(), oldS));
            assertThat(m.image().apply(readBack)).as(what).isEqualTo(m.image().apply(oldS));
            assertThat(m.expecting().apply(readBack).expectedShape()).as(what + ": shape of the structure read back")
                    .isEqualTo(m.expecting().apply(oldS).expectedShape());
            boolean behaviourChanged = m.behaviourOnly().stream()
                    .anyMatch(n -> !oldC.get(n).equals(newC.get(n)));
            if (!behaviourChanged) {
                m.fill().accept(newS, new Random(seed));
                assertThat(m.image().apply(readBack)).as(what + ": same shape, same inserts, same image")
                        .isEqualTo(m.image().apply(newS));
            }
        }
        System.out.println(m.name() + ": " + compatible + " compatible, " + incompatible + " incompatible pairs");
        assertThat(compatible).isPositive();
        assertThat(incompatible).isPositive();
    }

    /**
     * Every committed serializer-snapshot fixture, read with the current code, resolved against its own shape with
     * each field changed in turn (and with pairs changed): incompatible, naming exactly the changed fields; with a
     * hint added: compatible as is.
     */
    @org.junit.jupiter.api.Test
    void committedFixturesResolveAgainstChangedShapesAsDocumented() throws IOException {
        int checked = 0;
        for (var dir : SnapshotFixture.committed(ShapeCompatibilityModelTest.class).keySet()) {
            byte[] bytes = SnapshotFixture.read(ShapeCompatibilityModelTest.class, dir, SnapshotFixture.SNAPSHOT_FILE);
            DataInputDeserializer in = new DataInputDeserializer(bytes);
            TypeSerializerSnapshot<Object> restored = TypeSerializerSnapshot.readVersionedSnapshot(in, CL);
            assertThat(in.available()).as(dir).isZero();
            if (!(restored instanceof ImageSerializerSnapshot<Object> old) || old.shape() == null) {
                continue;
            }
            List<String> names = new ArrayList<>(old.shape().fields().keySet());
            for (int a = 0; a < names.size(); a++) {
                for (int b = a; b < names.size(); b++) {
                    Shape.Builder nb = Shape.builder();
                    List<String> expected = new ArrayList<>();
                    for (String n : names) {
                        String v = old.shape().fields().get(n);
                        boolean change = n.equals(names.get(a)) || n.equals(names.get(b));
                        String nv = change ? v + "0" : v;
                        nb.field(n, nv);
                        if (change) {
                            expected.add(n + ": " + v + " -> " + nv);
                        }
                    }
                    ImageSerializerSnapshot<Object> now = ((ImageSerializer<Object>) old.restoreSerializer())
                            .newSnapshot(nb.build());
                    assertThat(now.resolveSchemaCompatibility(restored).isIncompatible()).as(dir).isTrue();
                    assertThat(now.incompatibilityFrom(restored)).as(dir).isEqualTo(String.join(", ", expected));
                }
            }
            ImageSerializerSnapshot<Object> hinted = ((ImageSerializer<Object>) old.restoreSerializer())
                    .newSnapshot(old.shape().withHint("expectedItems", 12345));
            assertThat(hinted.resolveSchemaCompatibility(restored).isCompatibleAsIs()).as(dir).isTrue();
            checked++;
        }
        assertThat(checked).isGreaterThanOrEqualTo(11);
    }

    /**
     * The documented sound change of a flow table (flow-meter.md: timeouts and overflow policy are behaviour, not
     * layout): a table restored under a serializer expecting other timeouts is compatible as is, and once it takes
     * the new timeouts, flows already past them leave at the next sweep, each exactly once.
     */
    @org.junit.jupiter.api.Test
    void aFlowTableRestoredWithOtherTimeoutsTakesThemAndExportsAtTheNextSweep() throws IOException {
        FlowTable.Builder before = FlowTable.builder().capacity(200).seed(3).idleTimeout(10_000).activeTimeout(50_000);
        FlowTable.Builder after = FlowTable.builder().capacity(200).seed(3).idleTimeout(100).activeTimeout(1_000)
                .overflowPolicy(OverflowPolicy.EXPORT_NEW);
        FlowTable t = before.build();
        for (int i = 0; i < 150; i++) {
            t.update(FiveTuple.ipv4(i, 1, 80, 443, 6), 0, 100, i < 100 ? 0 : 950);
        }
        TypeSerializerSnapshot<FlowTable> restored = roundTrip(FlowTableSerializer.expecting(before.plan())
                .snapshotConfiguration());
        FlowTableSerializer now = FlowTableSerializer.expecting(after.plan());
        assertThat(now.snapshotConfiguration().resolveSchemaCompatibility(restored).isCompatibleAsIs()).isTrue();
        FlowTable read = read(now, bytesOf(restored.restoreSerializer(), t));
        assertThat(read.idleTimeout()).isEqualTo(10_000); // the image's own, until the operator applies its own
        List<String> exported = new ArrayList<>();
        read.setExporter(r -> exported.add(r.key().toString()));
        read.setTimeouts(100, 1_000);
        read.setOverflowPolicy(OverflowPolicy.EXPORT_NEW);
        read.advanceTime(1_000, Integer.MAX_VALUE);
        assertThat(exported).hasSize(100).doesNotHaveDuplicates(); // idle since 0; those of 950 are not
        read.advanceTime(1_100, Integer.MAX_VALUE);
        assertThat(exported).hasSize(150).doesNotHaveDuplicates();
    }

    /** {@code image} with byte {@code at} set to {@code value} and the CRC32C trailer recomputed. */
    static byte[] patched(byte[] image, int at, int value) {
        byte[] b = image.clone();
        b[at] = (byte) value;
        java.util.zip.CRC32C crc = new java.util.zip.CRC32C();
        crc.update(b, 0, b.length - 4);
        java.nio.ByteBuffer.wrap(b, b.length - 4, 4).order(java.nio.ByteOrder.LITTLE_ENDIAN).putInt((int) crc.getValue());
        return b;
    }

    static <T> String readError(ImageSerializer<T> s, byte[] image, boolean whole) {
        DataOutputSerializer out = new DataOutputSerializer(image.length + 4);
        try {
            out.writeInt(image.length);
            out.write(image);
            byte[] framed = out.getCopyOfBuffer();
            if (whole) {
                s.deserialize(new DataInputDeserializer(framed));
            } else {
                s.deserialize(new org.apache.flink.core.memory.DataInputViewStreamWrapper(
                        new java.io.FilterInputStream(new java.io.ByteArrayInputStream(framed)) {
                            @Override
                            public int available() {
                                return 0;
                            }
                        }));
            }
        } catch (IOException e) {
            return e.getMessage();
        }
        return null;
    }

    /**
     * STATE-FORMAT.md rules 6 and 7 through every serializer, on both read paths: an image of a newer version is
     * rejected ("format version N … is not supported"), never misread; a set reserved short is rejected after the
     * checksum passed; a corrupt byte is a checksum mismatch.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("models")
    <T> void newerVersionsAndTheReservedShortAreRefused(Model<T> m) {
        Random r = new Random(3);
        Map<String, Object> c = new LinkedHashMap<>();
        m.params().forEach((k, v) -> c.put(k, v.get(0)));
        T value = m.build().apply(c);
        m.fill().accept(value, r);
        byte[] image = m.image().apply(value);
        for (boolean whole : new boolean[] {true, false}) {
            for (int v : new int[] {0, 2, 255}) {
                assertThat(readError(m.unspecified(), patched(image, 5, v), whole)).as(m + " version " + v)
                        .startsWith("cannot read ").contains("format version " + v + " of ")
                        .contains("is not supported: this library reads versions 1..1");
            }
            assertThat(readError(m.unspecified(), patched(image, 6, 1), whole)).as(m + " reserved")
                    .contains("reserved is 1, must be 0");
            byte[] corrupt = image.clone();
            corrupt[image.length / 2] ^= 0x10;
            assertThat(readError(m.unspecified(), corrupt, whole)).as(m + " corrupt").contains("image corrupt");
            assertThat(readError(m.unspecified(), image, whole)).as(m + " intact").isNull();
        }
    }

    /** Rule 4/7 across the CM-heap's embedded Count-Min image: a newer embedded version is refused, not misread. */
    @org.junit.jupiter.api.Test
    void aCountMinHeapEmbeddingANewerCountMinVersionIsRefused() {
        CountMinHeap h = CountMinHeap.create(KeyKind.longs(), 16, 64, 3, true, 5);
        fillHh(h, new Random(1));
        byte[] image = h.toByteArray();
        int sketchBytes = java.nio.ByteBuffer.wrap(image, 28, 4).order(java.nio.ByteOrder.LITTLE_ENDIAN).getInt();
        byte[] sketch = java.util.Arrays.copyOfRange(image, 32, 32 + sketchBytes);
        byte[] newer = patched(sketch, 5, 2);
        byte[] b = image.clone();
        System.arraycopy(newer, 0, b, 32, newer.length);
        b = patched(b, 0, b[0]);
        for (boolean whole : new boolean[] {true, false}) {
            assertThat(readError(CountMinHeapSerializer.INSTANCE, b, whole))
                    .contains("format version 2 of COUNT_MIN").contains("is not supported");
        }
    }

    static <T> ImageSerializer<T> withShape(ImageSerializer<T> s, Shape shape) {
        return (ImageSerializer<T>) s.newSnapshot(shape).restoreSerializer();
    }
}
