package io.linerate.flink.dedup;

import io.linerate.flink.serializers.SnapshotFixture;
import io.linerate.sketches.bloom.BlockedBloomFilter;
import io.linerate.sketches.hash.ItemHasher;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.SplittableRandom;

/**
 * Serializer-snapshot fixture of the dedup state ({@link SnapshotFixture}): {@link GenerationRingSerializer} as the
 * operator configures it (the sizing's {@link RingShape}) and a ring whose generations were filled in turn from a
 * fixed seed, the ring advanced past its first epoch so that the slots are reused.
 */
public final class GenerationRingFixtures {

    private GenerationRingFixtures() {
    }

    static final long ITEMS_SEED = 20261126L;

    public static List<SnapshotFixture<?>> all() {
        DedupSizing sizing = DedupSizing.derive(Duration.ofSeconds(3), 4, 50, 0.01, 23, 0);
        return List.of(SnapshotFixture.of("generation-ring", new GenerationRingSerializer(sizing.shape(true)),
                () -> ring(sizing), GenerationRingFixtures::contents));
    }

    static GenerationRing ring(DedupSizing s) {
        GenerationRing ring = new GenerationRing(s.generations(), s.seed(), 0, 0);
        ItemHasher hasher = ItemHasher.seeded(s.seed());
        SplittableRandom r = new SplittableRandom(ITEMS_SEED);
        for (long e = 0; e < s.generations() + 2; e++) {
            ring.advanceTo(e, s.itemsPerGeneration());
            for (int i = 0; i < 20 + 5 * e; i++) {
                long h1 = hasher.hash(r.nextLong(1000));
                ring.testAndPut(h1, ItemHasher.h2(h1), s);
            }
        }
        ring.clock(5_400);
        ring.timerAt(6_000);
        return ring;
    }

    static List<String> contents(GenerationRing ring) {
        List<String> out = new ArrayList<>();
        out.add("seed " + ring.seed() + ", epoch " + ring.epoch() + ", clock " + ring.clock() + ", timer "
                + ring.timerAt() + ", generations " + ring.generationCount());
        for (int s = 0; s < ring.generationCount(); s++) {
            BlockedBloomFilter f = ring.slotFilter(s);
            out.add(s + ": inserted " + ring.slotInserted(s) + ", filter "
                    + (f == null ? "none" : HexFormat.of().formatHex(f.toByteArray())));
        }
        return out;
    }
}
