package io.linerate.flink.heavyhitters;

import io.linerate.flink.serializers.SnapshotFixture;
import io.linerate.sketches.frequency.HeavyHitters;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * Serializer-snapshot fixtures of the heavy-hitters state ({@link SnapshotFixture}): {@link WindowRingSerializer} as
 * the operator configures it (the detector's {@link WindowShape}), one ring per tracker kind. Each ring has grown to
 * four slots over sliding sub-windows, one of them freed again, its trackers filled from a fixed seed beyond their
 * capacity and some items marked alerted.
 */
public final class WindowRingFixtures {

    private WindowRingFixtures() {
    }

    static final long ITEMS_SEED = 20261126L;

    public static List<SnapshotFixture<?>> all() {
        List<SnapshotFixture<?>> all = new ArrayList<>();
        detectors().forEach((kind, detector) -> all.add(fixture("window-ring-" + kind, detector)));
        return all;
    }

    /** The fixtures' detectors by tracker kind ("space-saving", "count-min-heap"): sliding 3 s / 1 s windows. */
    static Map<String, HeavyHitterDetector<?, ?>> detectors() {
        Map<String, HeavyHitterDetector<?, ?>> detectors = new LinkedHashMap<>();
        detectors.put("space-saving", Fixtures.builder().sliding(Duration.ofSeconds(3), Duration.ofSeconds(1))
                .phi(0.05).capacity(24).seed(21).build());
        detectors.put("count-min-heap", Fixtures.builder().sliding(Duration.ofSeconds(3), Duration.ofSeconds(1))
                .phi(0.05).countMinHeap(64, 3).capacity(24).seed(22).build());
        return detectors;
    }

    private static SnapshotFixture<WindowRing> fixture(String name, HeavyHitterDetector<?, ?> detector) {
        return SnapshotFixture.of(name, new WindowRingSerializer(detector.shape()), () -> ring(detector),
                WindowRingFixtures::contents);
    }

    /** Sub-windows 100..103 opened (the ring grows from 3 to 4 slots), 100 reported and freed. */
    static WindowRing ring(HeavyHitterDetector<?, ?> detector) {
        SplittableRandom r = new SplittableRandom(ITEMS_SEED);
        WindowRing ring = new WindowRing(detector.shape().subWindows());
        for (long sub = 100; sub <= 103; sub++) {
            HeavyHitters t = detector.newTracker();
            for (int i = 0; i < 400; i++) {
                double u = r.nextDouble();
                t.update((long) (60 * u * u * u), 1 + r.nextInt(5));
            }
            int slot = ring.open(sub, t);
            for (int a = 0; a < (int) (sub - 99); a++) {
                ring.markAlerted(slot, r.nextLong(), detector.capacity());
            }
        }
        ring.free(ring.find(100));
        return ring;
    }

    /** Slots in order: sub-window, tracker class and image, alerted hashes (sorted). */
    static List<String> contents(WindowRing ring) {
        List<String> out = new ArrayList<>();
        out.add("slots " + ring.slots());
        for (int i = 0; i < ring.slots(); i++) {
            if (ring.subWindow(i) == WindowRing.FREE) {
                out.add(i + ": free");
                continue;
            }
            long[] alerted = ring.window(i).alerted == null ? new long[0] : ring.window(i).alerted.toArray();
            Arrays.sort(alerted);
            HeavyHitters t = ring.tracker(i);
            out.add(i + ": sub-window " + ring.subWindow(i) + ", " + t.getClass().getSimpleName() + " "
                    + HexFormat.of().formatHex(t.toByteArray()) + ", alerted " + Arrays.toString(alerted));
        }
        return out;
    }
}
