package io.linerate.flink.heavyhitters;

import static org.assertj.core.api.Assertions.assertThat;

import io.linerate.flink.items.ItemSelector;
import io.linerate.sketches.frequency.HeavyHitters;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.flink.api.common.typeutils.TypeSerializerSchemaCompatibility;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.api.java.tuple.Tuple3;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.junit.jupiter.api.Test;

/**
 * Model-based check of {@link WindowRingSerializer.Snapshot} against heavy-hitters.md "Restores check the window
 * shape": random pairs of detector configurations; every difference in slide, sub-windows, tracker kind, capacity,
 * sketch width/depth, key kind or seed is incompatible and named; phi, alert thresholds and maxOpenSubWindows are
 * not state and restore compatible as is, the restored ring then working with the new detector's trackers.
 */
class WindowShapeModelTest {

    static final ClassLoader CL = WindowShapeModelTest.class.getClassLoader();

    static final List<long[]> WINDOWS = List.of(new long[] {3000, 3000}, new long[] {3000, 1000},
            new long[] {4000, 1000}, new long[] {3000, 1500}, new long[] {6000, 2000});
    static final List<String> ITEMS = List.of("longs", "fiveTuples", "strings32", "strings64");

    static ItemSelector<Tuple3<String, Long, Integer>> item(String kind) {
        return switch (kind) {
            case "longs" -> ItemSelector.longs(r -> r.f1);
            case "fiveTuples" -> ItemSelector.fiveTuples(r -> io.linerate.sketches.hash.FiveTuple.ipv4(
                    r.f1.intValue(), 1, 2, 3, 6));
            case "strings32" -> ItemSelector.strings(r -> r.f0, 32);
            default -> ItemSelector.strings(r -> r.f0, 64);
        };
    }

    static String keyKind(String kind) {
        return switch (kind) {
            case "longs" -> "LONG";
            case "fiveTuples" -> "FIVE_TUPLE";
            case "strings32" -> "BYTES(32)";
            default -> "BYTES(64)";
        };
    }

    static Map<String, Object> random(Random r) {
        Map<String, Object> c = new LinkedHashMap<>();
        c.put("window", r.nextInt(WINDOWS.size()));
        c.put("cm", r.nextBoolean());
        c.put("cmWidth", r.nextBoolean() ? 64 : 128);
        c.put("cmDepth", r.nextBoolean() ? 2 : 3);
        c.put("capacity", r.nextBoolean() ? 24 : 32);
        c.put("seed", r.nextBoolean() ? 1L : 2L);
        c.put("item", ITEMS.get(r.nextInt(ITEMS.size())));
        c.put("phi", r.nextBoolean() ? 0.05 : 0.1);
        c.put("maxOpen", r.nextBoolean() ? 8 : 100);
        c.put("alert", r.nextBoolean() ? 0L : 500L);
        return c;
    }

    static HeavyHitterDetector<Tuple3<String, Long, Integer>, String> build(Map<String, Object> c) {
        long[] w = WINDOWS.get((Integer) c.get("window"));
        HeavyHitterDetector.Builder<Tuple3<String, Long, Integer>, String> b =
                HeavyHitterDetector.builder((Tuple3<String, Long, Integer> r) -> r.f0, item((String) c.get("item")));
        b = w[0] == w[1] ? b.tumbling(Duration.ofMillis(w[0]))
                : b.sliding(Duration.ofMillis(w[0]), Duration.ofMillis(w[1]));
        b.phi((Double) c.get("phi")).capacity((Integer) c.get("capacity")).seed((Long) c.get("seed"))
                .maxOpenSubWindows((Integer) c.get("maxOpen"));
        if ((Long) c.get("alert") > 0) {
            b.alertAtWeight((Long) c.get("alert"));
        }
        if ((Boolean) c.get("cm")) {
            b.countMinHeap((Integer) c.get("cmWidth"), (Integer) c.get("cmDepth"));
        }
        return b.build();
    }

    /** The documented shape, from the configuration. */
    static LinkedHashMap<String, String> docShape(Map<String, Object> c) {
        long[] w = WINDOWS.get((Integer) c.get("window"));
        boolean cm = (Boolean) c.get("cm");
        LinkedHashMap<String, String> m = new LinkedHashMap<>();
        m.put("slideMillis", String.valueOf(w[1]));
        m.put("subWindows", String.valueOf(w[0] / w[1]));
        m.put("tracker", cm ? "COUNT_MIN_HEAP" : "SPACE_SAVING");
        m.put("capacity", String.valueOf(c.get("capacity")));
        m.put("cmWidth", String.valueOf(cm ? c.get("cmWidth") : 0));
        m.put("cmDepth", String.valueOf(cm ? c.get("cmDepth") : 0));
        m.put("keyKind", keyKind((String) c.get("item")));
        m.put("seed", String.valueOf(c.get("seed")));
        return m;
    }

    static TypeSerializerSnapshot<WindowRing> roundTrip(TypeSerializerSnapshot<WindowRing> s) throws IOException {
        DataOutputSerializer out = new DataOutputSerializer(64);
        TypeSerializerSnapshot.writeVersionedSnapshot(out, s);
        DataInputDeserializer in = new DataInputDeserializer(out.getCopyOfBuffer());
        TypeSerializerSnapshot<WindowRing> read = TypeSerializerSnapshot.readVersionedSnapshot(in, CL);
        assertThat(in.available()).isZero();
        return read;
    }

    static void fill(HeavyHitters t, Random r) {
        for (int i = 0; i < 300; i++) {
            long x = r.nextInt(40);
            try {
                t.update(x, 1);
            } catch (IllegalArgumentException notLongs) {
                try {
                    t.update(io.linerate.sketches.hash.FiveTuple.ipv4((int) x, 1, 2, 3, 6), 1);
                } catch (IllegalArgumentException notTuples) {
                    byte[] b = ("item" + x).getBytes(StandardCharsets.UTF_8);
                    t.update(b, 0, b.length, 1);
                }
            }
        }
    }

    @Test
    void everyPairResolvesAsDocumented() throws IOException {
        Random r = new Random(4);
        int compatible = 0;
        int incompatible = 0;
        for (int pair = 0; pair < 400; pair++) {
            Map<String, Object> oldC = random(r);
            Map<String, Object> newC = new LinkedHashMap<>(oldC);
            Map<String, Object> other = random(r);
            List<String> names = new ArrayList<>(oldC.keySet());
            for (int i = 0; i < pair % 4; i++) {
                String n = names.get(r.nextInt(names.size()));
                newC.put(n, other.get(n));
            }
            HeavyHitterDetector<?, ?> oldD = build(oldC);
            HeavyHitterDetector<?, ?> newD = build(newC);
            String what = oldC + " -> " + newC;
            LinkedHashMap<String, String> before = docShape(oldC);
            LinkedHashMap<String, String> after = docShape(newC);
            List<String> expected = new ArrayList<>();
            before.forEach((k, v) -> {
                if (!v.equals(after.get(k))) {
                    expected.add(k + ": " + v + " -> " + after.get(k));
                }
            });
            WindowRingSerializer oldSer = new WindowRingSerializer(oldD.shape());
            WindowRingSerializer newSer = new WindowRingSerializer(newD.shape());
            TypeSerializerSnapshot<WindowRing> restored = roundTrip(oldSer.snapshotConfiguration());
            assertThat(restored.restoreSerializer()).as(what).isEqualTo(oldSer);
            WindowRingSerializer.Snapshot configured = (WindowRingSerializer.Snapshot) newSer.snapshotConfiguration();
            TypeSerializerSchemaCompatibility<WindowRing> c = configured.resolveSchemaCompatibility(restored);
            assertThat(configured.incompatibilityFrom(restored)).as(what).isEqualTo(expected);
            if (!expected.isEmpty()) {
                incompatible++;
                assertThat(c.isIncompatible()).as(what).isTrue();
                continue;
            }
            compatible++;
            assertThat(c.isCompatibleAsIs()).as(what).isTrue();
            // read as is by the new serializer; its trackers merge with the new detector's
            WindowRing ring = new WindowRing(oldD.shape().subWindows());
            for (long sub = 10; sub < 12; sub++) {
                HeavyHitters t = oldD.newTracker();
                fill(t, r);
                ring.open(sub, t);
            }
            DataOutputSerializer out = new DataOutputSerializer(1024);
            restored.restoreSerializer().serialize(ring, out);
            WindowRing read = newSer.deserialize(new DataInputDeserializer(out.getCopyOfBuffer()));
            HeavyHitters fresh = newD.newTracker();
            fill(fresh, r);
            fresh.merge(read.tracker(read.find(10)));
            read.tracker(read.find(11)).merge(fresh);
        }
        System.out.println("window ring: " + compatible + " compatible, " + incompatible + " incompatible pairs");
        assertThat(compatible).isPositive();
        assertThat(incompatible).isPositive();
    }

    /** A version-3 snapshot (SimpleTypeSerializerSnapshot, no bytes) reads as shape unknown: compatible as is. */
    @Test
    void aLegacyVersionThreeSnapshotRestoresIntoAnyShape() throws IOException {
        DataOutputSerializer out = new DataOutputSerializer(64);
        out.writeUTF(WindowRingSerializer.Snapshot.class.getName());
        out.writeInt(3);
        DataInputDeserializer in = new DataInputDeserializer(out.getCopyOfBuffer());
        TypeSerializerSnapshot<WindowRing> legacy = TypeSerializerSnapshot.readVersionedSnapshot(in, CL);
        assertThat(in.available()).isZero();
        Random r = new Random(5);
        for (int i = 0; i < 20; i++) {
            HeavyHitterDetector<?, ?> d = build(random(r));
            assertThat(new WindowRingSerializer(d.shape()).snapshotConfiguration().resolveSchemaCompatibility(legacy)
                    .isCompatibleAsIs()).isTrue();
        }
        assertThat(legacy.restoreSerializer()).isEqualTo(WindowRingSerializer.INSTANCE);
    }

    /**
     * heavy-hitters.md said "φ, k, the alert thresholds and maxOpenSubWindows are not part of the state and may
     * change". With the documented default capacity (c · max(k, ⌈1/φ⌉)) and CM-heap width (⌈2e/φ⌉), a restore after φ or k
     * changed is refused all the same, naming capacity (and cmWidth).
     */
    @Test
    void phiAndKChangeTheShapeUnlessCapacityAndWidthAreExplicit() throws IOException {
        HeavyHitterDetector<?, ?> before = Fixtures.builder().tumbling(Duration.ofSeconds(1)).phi(0.01).build();
        HeavyHitterDetector<?, ?> phi = Fixtures.builder().tumbling(Duration.ofSeconds(1)).phi(0.02).build();
        HeavyHitterDetector<?, ?> k = Fixtures.builder().tumbling(Duration.ofSeconds(1)).phi(0.01).topK(200).build();
        HeavyHitterDetector<?, ?> cmBefore = Fixtures.builder().tumbling(Duration.ofSeconds(1)).phi(0.01)
                .countMinHeap().build();
        HeavyHitterDetector<?, ?> cmPhi = Fixtures.builder().tumbling(Duration.ofSeconds(1)).phi(0.02)
                .countMinHeap().build();
        TypeSerializerSnapshot<WindowRing> old = roundTrip(new WindowRingSerializer(before.shape())
                .snapshotConfiguration());
        TypeSerializerSnapshot<WindowRing> cmOld = roundTrip(new WindowRingSerializer(cmBefore.shape())
                .snapshotConfiguration());
        WindowRingSerializer.Snapshot phiNow = (WindowRingSerializer.Snapshot) new WindowRingSerializer(phi.shape())
                .snapshotConfiguration();
        WindowRingSerializer.Snapshot kNow = (WindowRingSerializer.Snapshot) new WindowRingSerializer(k.shape())
                .snapshotConfiguration();
        WindowRingSerializer.Snapshot cmPhiNow = (WindowRingSerializer.Snapshot) new WindowRingSerializer(
                cmPhi.shape()).snapshotConfiguration();
        assertThat(phiNow.incompatibilityFrom(old)).containsExactly("capacity: 400 -> 200");
        assertThat(kNow.incompatibilityFrom(old)).containsExactly("capacity: 400 -> 800");
        assertThat(cmPhiNow.incompatibilityFrom(cmOld)).containsExactly("capacity: 400 -> 200",
                "cmWidth: 544 -> 272");
    }
}
