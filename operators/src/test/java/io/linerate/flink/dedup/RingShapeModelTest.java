package io.linerate.flink.dedup;

import static org.assertj.core.api.Assertions.assertThat;

import io.linerate.sketches.bloom.BlockedBloomFilter;
import io.linerate.sketches.hash.ItemHasher;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.flink.api.common.typeutils.TypeSerializerSchemaCompatibility;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.junit.jupiter.api.Test;

/**
 * Model-based check of {@link GenerationRingSerializer.Snapshot} against dedup.md "State": random pairs of
 * configurations (horizon, generations, rate, fpp, seed, event or processing time), the old snapshot written at
 * version 2 or 1; generations, spanMillis, blockBits, seed and time (when both record it) are incompatible and
 * named, rate and fpp (bits, hashCount) compatible as is, and then the old ring's bytes are read by the new
 * serializer and continue under the new sizing.
 */
class RingShapeModelTest {

    static final ClassLoader CL = RingShapeModelTest.class.getClassLoader();

    static Map<String, Object> random(Random r) {
        Map<String, Object> c = new LinkedHashMap<>();
        c.put("horizon", List.of(3000L, 2998L, 6000L, 4500L).get(r.nextInt(4)));
        c.put("generations", 3 + r.nextInt(3));
        c.put("rate", r.nextBoolean() ? 50.0 : 120.0);
        c.put("fpp", r.nextBoolean() ? 0.01 : 0.001);
        c.put("seed", r.nextBoolean() ? 23L : 24L);
        c.put("eventTime", r.nextBoolean());
        c.put("snapshotVersion", 1 + r.nextInt(2));
        return c;
    }

    /**
     * The sizings derived so far, by their inputs: deriving one (the blocked filter's exact false positive model)
     * takes about 40 ms, and the 300 derivations of the 150 pairs draw from 96 possible inputs (88 of them occur); derive
     * is a pure function of its inputs and a sizing is immutable, so each pair checks the same sizings either way.
     */
    static final Map<List<Object>, DedupSizing> SIZINGS = new java.util.HashMap<>();

    static DedupSizing sizing(Map<String, Object> c) {
        return SIZINGS.computeIfAbsent(List.of(c.get("horizon"), c.get("generations"), c.get("rate"), c.get("fpp"),
                c.get("seed")), k -> derive(c));
    }

    static DedupSizing derive(Map<String, Object> c) {
        return DedupSizing.derive(Duration.ofMillis((Long) c.get("horizon")), (Integer) c.get("generations"),
                (Double) c.get("rate"), (Double) c.get("fpp"), (Long) c.get("seed"), 0);
    }

    static byte[] snapshotBytes(GenerationRingSerializer s, int version) throws IOException {
        DataOutputSerializer out = new DataOutputSerializer(64);
        TypeSerializerSnapshot.writeVersionedSnapshot(out, s.snapshotConfiguration());
        byte[] v2 = out.getCopyOfBuffer();
        if (version == 2) {
            return v2;
        }
        // version 1: the same bytes without the time byte at the end
        DataOutputSerializer v1 = new DataOutputSerializer(64);
        v1.writeUTF(GenerationRingSerializer.Snapshot.class.getName());
        v1.writeInt(1);
        int header = 2 + GenerationRingSerializer.Snapshot.class.getName().length() + 4;
        v1.write(v2, header, v2.length - header - 1);
        return v1.getCopyOfBuffer();
    }

    @Test
    void everyPairResolvesAsDocumented() throws IOException {
        Random r = new Random(7);
        int compatible = 0;
        int incompatible = 0;
        for (int pair = 0; pair < 150; pair++) {
            Map<String, Object> oldC = random(r);
            Map<String, Object> newC = new LinkedHashMap<>(oldC);
            Map<String, Object> other = random(r);
            List<String> names = new ArrayList<>(oldC.keySet());
            for (int i = 0; i < pair % 4; i++) {
                String n = names.get(r.nextInt(names.size()));
                newC.put(n, other.get(n));
            }
            DedupSizing oldS = sizing(oldC);
            DedupSizing newS = sizing(newC);
            String what = oldC + " -> " + newC;
            int gOld = (Integer) oldC.get("generations");
            int gNew = (Integer) newC.get("generations");
            long spanOld = -Math.floorDiv(-(Long) oldC.get("horizon"), gOld - 1);
            long spanNew = -Math.floorDiv(-(Long) newC.get("horizon"), gNew - 1);
            List<String> expected = new ArrayList<>();
            if (gOld != gNew) {
                expected.add("generations: " + gOld + " -> " + gNew);
            }
            if (spanOld != spanNew) {
                expected.add("spanMillis: " + spanOld + " -> " + spanNew);
            }
            if (!oldC.get("seed").equals(newC.get("seed"))) {
                expected.add("seed: " + oldC.get("seed") + " -> " + newC.get("seed"));
            }
            String tOld = (Boolean) oldC.get("eventTime") ? "EVENT" : "PROCESSING";
            String tNew = (Boolean) newC.get("eventTime") ? "EVENT" : "PROCESSING";
            if ((Integer) oldC.get("snapshotVersion") == 2 && !tOld.equals(tNew)) {
                expected.add("time: " + tOld + " -> " + tNew);
            }
            GenerationRingSerializer oldSer = new GenerationRingSerializer(oldS.shape((Boolean) oldC.get("eventTime")));
            GenerationRingSerializer newSer = new GenerationRingSerializer(newS.shape((Boolean) newC.get("eventTime")));
            DataInputDeserializer in = new DataInputDeserializer(
                    snapshotBytes(oldSer, (Integer) oldC.get("snapshotVersion")));
            TypeSerializerSnapshot<GenerationRing> restored = TypeSerializerSnapshot.readVersionedSnapshot(in, CL);
            assertThat(in.available()).isZero();
            assertThat(restored.restoreSerializer()).as(what).isEqualTo(oldSer);
            GenerationRingSerializer.Snapshot configured =
                    (GenerationRingSerializer.Snapshot) newSer.snapshotConfiguration();
            TypeSerializerSchemaCompatibility<GenerationRing> c = configured.resolveSchemaCompatibility(restored);
            assertThat(configured.incompatibilityFrom(restored)).as(what).isEqualTo(expected);
            if (!expected.isEmpty()) {
                incompatible++;
                assertThat(c.isIncompatible()).as(what).isTrue();
                continue;
            }
            compatible++;
            assertThat(c.isCompatibleAsIs()).as(what).isTrue();
            List<String> readable = new ArrayList<>();
            if (oldS.bitsPerGeneration() != newS.bitsPerGeneration()) {
                readable.add("bits: " + oldS.bitsPerGeneration() + " -> " + newS.bitsPerGeneration());
            }
            if (oldS.hashCount() != newS.hashCount()) {
                readable.add("hashCount: " + oldS.hashCount() + " -> " + newS.hashCount());
            }
            assertThat(configured.readableChangesFrom(restored)).as(what).isEqualTo(readable);
            // migrate a real ring: filled under the old sizing, read by the new serializer, continued with the new
            GenerationRing ring = new GenerationRing(oldS.generations(), oldS.seed(), 0, 0);
            ItemHasher hasher = ItemHasher.seeded(oldS.seed());
            List<Long> items = new ArrayList<>();
            for (long e = 0; e < 2; e++) {
                ring.advanceTo(e, oldS.itemsPerGeneration());
                for (int i = 0; i < 40; i++) {
                    long item = r.nextLong();
                    items.add(item);
                    long h1 = hasher.hash(item);
                    ring.testAndPut(h1, ItemHasher.h2(h1), oldS);
                }
            }
            DataOutputSerializer out = new DataOutputSerializer(1024);
            restored.restoreSerializer().serialize(ring, out);
            GenerationRing read = newSer.deserialize(new DataInputDeserializer(out.getCopyOfBuffer()));
            for (long item : items) {
                long h1 = hasher.hash(item);
                assertThat(read.testAndPut(h1, ItemHasher.h2(h1), newS) & GenerationRing.SEEN).as(what).isNotZero();
            }
            read.advanceTo(2, newS.itemsPerGeneration());
            long h1 = hasher.hash(r.nextLong());
            read.testAndPut(h1, ItemHasher.h2(h1), newS);
            BlockedBloomFilter fresh = read.generation(2);
            assertThat(fresh.bitSize()).as(what).isEqualTo(newS.bitsPerGeneration());
            assertThat(read.generation(0).bitSize()).as(what).isEqualTo(oldS.bitsPerGeneration());
        }
        System.out.println("generation ring: " + compatible + " compatible, " + incompatible + " incompatible pairs, "
                + SIZINGS.size() + " distinct sizings");
        assertThat(compatible).isPositive();
        assertThat(incompatible).isPositive();
    }
}
