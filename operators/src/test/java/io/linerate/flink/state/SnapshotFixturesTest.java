package io.linerate.flink.state;

import static org.assertj.core.api.Assertions.assertThat;

import io.linerate.flink.dedup.GenerationRingFixtures;
import io.linerate.flink.heavyhitters.SubWindowFixtures;
import io.linerate.flink.heavyhitters.WindowRingFixtures;
import io.linerate.flink.serializers.SnapshotFixture;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Upgrade safety of the operators' own state serializers (the heavy-hitters {@code WindowRingSerializer}, the dedup
 * {@code GenerationRingSerializer}), as Flink's {@code TypeSerializerUpgradeTestBase} checks it: for every committed
 * directory {@code src/test/resources/snapshots/v<snapshot version>/<name>/} (written by
 * {@link WriteSnapshotFixtures}), the current code reads the serializer snapshot, finds it compatible as is with the
 * serializer the operator configures, restores that serializer from it, reads the committed ring with it into a ring
 * equal (slots, tracker or filter images, alerted items, clocks) to the one built now from the same seeds, and, at
 * the current snapshot version, writes exactly the committed bytes again. Every current fixture must be committed,
 * every committed directory known, and every serializer snapshot class of this module's main code covered. The
 * flow meter's state is a {@code FlowTable} under {@code FlowTableSerializer.expecting(...)} and the Count-Min
 * operators' a {@code CountMinSketch} under the unspecified-shape serializer: both are pinned by the fixtures of
 * {@code state-serializers}. The heavy-hitters snapshot's legacy version 3 is pinned by the v1 heavy-hitters
 * savepoint of {@code integration-tests} (see docs/STATE-FORMAT.md, "Serializer snapshot fixtures").
 */
class SnapshotFixturesTest {

    static List<SnapshotFixture<?>> all() {
        List<SnapshotFixture<?>> all = new ArrayList<>(WindowRingFixtures.all());
        all.addAll(SubWindowFixtures.all());
        all.addAll(GenerationRingFixtures.all());
        return all;
    }

    @Test
    void everyCommittedFixtureRestoresAndTheCurrentOnesAreByteStable() throws Exception {
        List<String> lines = SnapshotFixture.checkAll(SnapshotFixturesTest.class, ShapeCheckedSnapshot.class, all());
        lines.forEach(l -> System.out.println("[SnapshotFixturesTest] " + l));
        assertThat(lines).as("fixtures checked").hasSizeGreaterThanOrEqualTo(all().size());
    }

    @SuppressWarnings("unchecked")
    private static List<String> contents(String name) {
        SnapshotFixture<Object> f = (SnapshotFixture<Object>) all().stream().filter(x -> x.name().equals(name))
                .findFirst().orElseThrow();
        return (List<String>) f.contents().apply(f.value().get());
    }

    /** The values are what an operator's state holds mid-stream, not empty rings. */
    @Test
    void theFixtureValuesAreNonTrivial() {
        for (String ring : List.of("window-ring-space-saving", "window-ring-count-min-heap")) {
            List<String> c = contents(ring);
            assertThat(c).as(ring).startsWith("slots 4").contains("0: free").hasSize(5);
            assertThat(c.subList(2, 5)).as(ring).allMatch(s -> s.contains("sub-window 10") && !s.endsWith("alerted []"));
        }
        List<String> dedup = contents("generation-ring");
        assertThat(dedup).hasSize(5).noneMatch(s -> s.contains("filter none") || s.contains("inserted 0,"));
        assertThat(dedup.get(0)).contains("epoch 5");
    }
}
