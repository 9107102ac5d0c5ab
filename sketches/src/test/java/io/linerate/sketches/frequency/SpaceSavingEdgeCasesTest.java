package io.linerate.sketches.frequency;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.linerate.sketches.hash.FiveTuple;
import io.linerate.sketches.image.Family;
import io.linerate.sketches.image.ImageWriter;
import org.junit.jupiter.api.Test;

/**
 * Space-Saving at the ends of its ranges: memory budgets that are exactly a capacity's, k = 0, weight-0 items in
 * images (count 0, count = error, count = N are all valid), and images a writer never produces (an item repeated
 * in slot 0, bytes after the last field), plus updates of the wrong key kind.
 */
class SpaceSavingEdgeCasesTest {

    private static final KeyKind LONGS = KeyKind.longs();

    @Test
    void aBudgetOfExactlyACapacitysMemoryGivesThatCapacity() {
        for (KeyKind kind : new KeyKind[] {LONGS, KeyKind.fiveTuples(), KeyKind.bytes(20)}) {
            for (int capacity : new int[] {1, 2, 1000}) {
                long bytes = SpaceSaving.memoryBytesFor(kind, capacity);
                assertThat(SpaceSaving.capacityForMemory(kind, bytes)).as("%s %d", kind, capacity).isEqualTo(capacity);
                assertThat(SpaceSaving.withMemory(kind, bytes, 1).memoryBytes()).isEqualTo(bytes);
            }
            long one = SpaceSaving.memoryBytesFor(kind, 1);
            assertThatThrownBy(() -> SpaceSaving.capacityForMemory(kind, one - 1))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("bytes=" + (one - 1) + " cannot hold a single " + kind + " counter: needs at least " + one);
        }
    }

    @Test
    void memoryBytesForTakesEveryCapacityInRange() {
        assertThat(SpaceSaving.memoryBytesFor(LONGS, 1)).isEqualTo(SpaceSaving.withCapacity(LONGS, 1, 1).memoryBytes());
        assertThat(SpaceSaving.memoryBytesFor(LONGS, SpaceSaving.MAX_CAPACITY))
                .isEqualTo(MonitoredItems.bytesFor(LONGS, SpaceSaving.MAX_CAPACITY, true));
        assertThatThrownBy(() -> SpaceSaving.memoryBytesFor(LONGS, 0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> SpaceSaving.memoryBytesFor(LONGS, SpaceSaving.MAX_CAPACITY + 1))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void topZeroIsEmpty() {
        SpaceSaving ss = SpaceSaving.withCapacity(LONGS, 4, 1);
        ss.update(1, 5);
        assertThat(ss.topK(0)).isEmpty();
        assertThatThrownBy(() -> ss.topK(-1)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void updatesOfAnotherKeyKindAreRefused() {
        for (HeavyHitters t : new HeavyHitters[] {SpaceSaving.withCapacity(KeyKind.fiveTuples(), 4, 1),
                CountMinHeap.create(KeyKind.fiveTuples(), 4, 64, 2, true, 1)}) {
            assertThatThrownBy(() -> t.update(1L, 1)).isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> t.update(new byte[] {1}, 0, 1, 1)).isInstanceOf(IllegalArgumentException.class);
            assertThat(t.totalWeight()).isZero();
        }
        for (HeavyHitters t : new HeavyHitters[] {SpaceSaving.withCapacity(LONGS, 4, 1),
                CountMinHeap.create(LONGS, 4, 64, 2, true, 1)}) {
            assertThatThrownBy(() -> t.update(FiveTuple.ipv4(1, 2, 3, 4, 6), 1))
                    .isInstanceOf(IllegalArgumentException.class);
            assertThat(t.totalWeight()).isZero();
        }
    }

    /** Weight 0 is a valid weight (≥ 0): an item first seen with it has count 0, or count = error once full. */
    @Test
    void imagesOfWeightZeroItemsReadBack() {
        SpaceSaving single = SpaceSaving.withCapacity(LONGS, 2, 1);
        single.update(3, 0); // count 0 = error 0
        single.update(4, 9); // count 9 = N
        assertRoundTrip(single);
        SpaceSaving full = SpaceSaving.withCapacity(LONGS, 1, 1);
        full.update(1, 5);
        full.update(2, 0); // replaces item 1: count 5 = error 5 = N
        assertThat(full.topK(1)).containsExactly(new HeavyHitter(2L, 5, 0, 5));
        assertRoundTrip(full);
    }

    private static void assertRoundTrip(SpaceSaving ss) {
        SpaceSaving read = SpaceSaving.fromByteArray(ss.toByteArray());
        assertThat(read.topK(10)).isEqualTo(ss.topK(10));
        assertThat(read.toByteArray()).isEqualTo(ss.toByteArray());
    }

    @Test
    void anImageRepeatingTheItemOfItsFirstEntryIsRefused() {
        byte[] image = TrackerImages.spaceSaving(LONGS, 4, 1, 10, new long[] {42, 3, 0}, new long[] {42, 3, 0});
        assertThatThrownBy(() -> SpaceSaving.fromByteArray(image)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("entry 1 repeats an item");
    }

    @Test
    void anImageWithBytesAfterItsLastFieldIsRefused() {
        // a valid one-entry image, then 8 more field bytes
        ImageWriter out = new ImageWriter(Family.SPACE_SAVING, SpaceSaving.IMAGE_VERSION, 40 + 28 + 8)
                .putLong(1).putInt(LONGS.id()).putInt(LONGS.maxBytes()).putInt(4).putLong(10).putLong(0).putInt(1)
                .putLongs(new long[] {42, 3, 0}, 0, 3).putInt(0).putLong(0);
        byte[] image = out.finish();
        assertThatThrownBy(() -> SpaceSaving.fromByteArray(image)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("trailing");
    }
}
