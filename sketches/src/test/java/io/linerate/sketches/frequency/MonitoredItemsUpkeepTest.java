package io.linerate.sketches.frequency;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.linerate.sketches.image.Family;
import io.linerate.sketches.image.ImageWriter;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The trackers' item set ({@link MonitoredItems}) through Space-Saving: the heap order an image carries is checked
 * (a permutation of the slots satisfying the min-heap), an item that has just displaced the lightest through the
 * O(1) leaf-to-root path can be updated at once, and merges into a large tracker that is far from full (where the
 * merged set's index is smaller than the tracker's, so it is rebuilt) leave no stale index entries behind.
 */
class MonitoredItemsUpkeepTest {

    private static final KeyKind LONGS = KeyKind.longs();

    /** Two entries (count 5, then 3) with the given heap order. */
    private static byte[] image(int... heapOrder) {
        ImageWriter out = new ImageWriter(Family.SPACE_SAVING, SpaceSaving.IMAGE_VERSION, 40 + 2 * 24 + 4L * 2)
                .putLong(1).putInt(LONGS.id()).putInt(LONGS.maxBytes()).putInt(4).putLong(8).putLong(0).putInt(2)
                .putLongs(new long[] {10, 5, 0, 11, 3, 0}, 0, 6);
        for (int s : heapOrder) {
            out.putInt(s);
        }
        return out.finish();
    }

    @Test
    void theHeapOrderOfAnImageIsChecked() {
        assertThat(SpaceSaving.fromByteArray(image(1, 0)).topK(2)).extracting(HeavyHitter::item)
                .containsExactly(10L, 11L);
        assertThatThrownBy(() -> SpaceSaving.fromByteArray(image(0, 1))).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("lighter than its parent");
        assertThatThrownBy(() -> SpaceSaving.fromByteArray(image(1, 2))).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("heap order entry 1 is 2");
        assertThatThrownBy(() -> SpaceSaving.fromByteArray(image(1, 1))).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("heap order entry 1 is 1");
    }

    @Test
    void anItemThatJustDisplacedTheLightestCanBeUpdatedAtOnce() {
        SpaceSaving ss = SpaceSaving.withCapacity(LONGS, 2, 1);
        ss.update(1, 1);
        ss.update(2, 1); // both at the minimum: the next new item takes the leaf-to-root path
        ss.update(3, 1);
        ss.update(3, 4);
        ss.update(3, 1);
        assertThat(ss.topK(1)).containsExactly(new HeavyHitter(3L, 7, 6, 7));
        SpaceSaving read = SpaceSaving.fromByteArray(ss.toByteArray());
        assertThat(read.topK(2)).isEqualTo(ss.topK(2));
    }

    @Test
    // preemptive: stale index entries filled the index and an insertion never ended
    @Timeout(value = 20, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void mergesIntoALargeTrackerFarFromFullKeepFindingItsItems() {
        SpaceSaving big = SpaceSaving.withCapacity(LONGS, 200, 1);
        long next = 0;
        for (int round = 0; round < 12; round++) {
            SpaceSaving small = SpaceSaving.withCapacity(LONGS, 200, 1);
            for (int i = 0; i < 10; i++) {
                small.update(next++, 2);
            }
            big.merge(small);
        }
        for (long item = 0; item < next; item++) {
            big.update(item, 1); // found: its count grows, no new entry
        }
        assertThat(big.topK(200)).hasSize(120).allSatisfy(h -> {
            assertThat(h.lowerBound()).isEqualTo(3);
            assertThat(h.upperBound()).isEqualTo(3);
        });
    }
}
