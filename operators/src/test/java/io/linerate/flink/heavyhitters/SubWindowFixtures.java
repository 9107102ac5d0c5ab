package io.linerate.flink.heavyhitters;

import io.linerate.flink.serializers.SnapshotFixture;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;

/**
 * Serializer-snapshot fixtures of the heavy-hitters state of layout 2 ({@link SnapshotFixture}): a
 * {@link SubWindowSerializer} per tracker kind and the {@link OpenSubWindowsSerializer}, as the operator configures
 * them (the detector's {@link WindowShape}). The values are the open sub-windows of {@link WindowRingFixtures}' rings:
 * trackers filled from a fixed seed beyond their capacity, items marked alerted.
 */
public final class SubWindowFixtures {

    private SubWindowFixtures() {
    }

    public static List<SnapshotFixture<?>> all() {
        List<SnapshotFixture<?>> all = new ArrayList<>();
        for (var e : WindowRingFixtures.detectors().entrySet()) {
            HeavyHitterDetector<?, ?> detector = e.getValue();
            String kind = e.getKey();
            all.add(SnapshotFixture.of("sub-window-" + kind, new SubWindowSerializer(detector.shape()),
                    () -> newestOf(WindowRingFixtures.ring(detector)), SubWindowFixtures::contents));
        }
        HeavyHitterDetector<?, ?> first = WindowRingFixtures.detectors().values().iterator().next();
        all.add(SnapshotFixture.of("open-sub-windows", new OpenSubWindowsSerializer(first.shape()),
                () -> WindowRingFixtures.ring(first).openSubWindows(), open -> List.of(Arrays.toString(open))));
        return all;
    }

    /** The ring's newest open sub-window (103: filled and with alerted items). */
    private static SubWindow newestOf(WindowRing ring) {
        return ring.window(ring.find(103));
    }

    /** Tracker class and image, alerted hashes (sorted). */
    static List<String> contents(SubWindow w) {
        long[] alerted = w.alerted == null ? new long[0] : w.alerted.toArray();
        Arrays.sort(alerted);
        return List.of(w.tracker.getClass().getSimpleName() + " " + HexFormat.of().formatHex(w.tracker.toByteArray()),
                "alerted " + Arrays.toString(alerted));
    }
}
