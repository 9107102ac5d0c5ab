package io.linerate.sketches.frequency;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.linerate.sketches.image.ImageWriter;
import java.lang.management.ManagementFactory;
import org.junit.jupiter.api.Test;

/**
 * A tracker whose image, once full, would exceed one image (2^31 − 9 bytes, one checkpointed value) is refused when
 * built, and the memory-sized factories stay below it: such trackers used to build and run, then fail every
 * checkpoint once they held enough items. The checks allocate nothing, so builders can run them where a job is built.
 */
class TrackerImageLimitTest {

    private static long allocated() {
        return ((com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean()).getCurrentThreadAllocatedBytes();
    }

    @Test
    void spaceSavingOverTheImageLimitIsRefusedWithoutAllocating() {
        KeyKind tuples = KeyKind.fiveTuples(); // 5 longs a key: 60 bytes an entry in the image
        int most = (int) ((ImageWriter.MAX_IMAGE_BYTES - 52) / 60);
        assertThat(SpaceSaving.fullImageBytes(tuples, most)).isLessThanOrEqualTo(ImageWriter.MAX_IMAGE_BYTES);
        assertThat(SpaceSaving.fullImageBytes(tuples, most + 1)).isGreaterThan(ImageWriter.MAX_IMAGE_BYTES);
        long before = allocated();
        SpaceSaving.checkCapacity(tuples, most);
        assertThatThrownBy(() -> SpaceSaving.withCapacity(tuples, most + 1, 1))
                .hasMessageStartingWith("capacity " + (most + 1) + " is too large for " + tuples + " keys: a full "
                        + "tracker's image would have " + SpaceSaving.fullImageBytes(tuples, most + 1) + " bytes");
        assertThat(SpaceSaving.capacityForMemory(tuples, Long.MAX_VALUE)).isLessThanOrEqualTo(most);
        assertThat(allocated() - before).isLessThan(1 << 20);
        // longs fit at every capacity: 28 bytes an entry
        SpaceSaving.checkCapacity(KeyKind.longs(), SpaceSaving.MAX_CAPACITY);
    }

    @Test
    void countMinHeapOverTheImageLimitIsRefusedWithoutAllocating() {
        CountMinSketch.Size largest = new CountMinSketch.Size((int) (CountMinSketch.MAX_COUNTERS / 4), 4);
        long before = allocated();
        // the largest sketch's image fits alone; with two candidates' room it does not
        assertThat(largest.imageBytes()).isLessThanOrEqualTo(ImageWriter.MAX_IMAGE_BYTES);
        assertThatThrownBy(() -> CountMinHeap.checkShape(KeyKind.longs(), 2, largest))
                .hasMessageContaining("is too large for").hasMessageContaining("one image (one checkpointed value)");
        assertThatThrownBy(() -> CountMinHeap.create(KeyKind.longs(), 2, largest.width(), 4, false, 1))
                .hasMessageContaining("is too large for");
        CountMinHeap.Size sized = CountMinHeap.sizeForMemory(KeyKind.fiveTuples(), Long.MAX_VALUE);
        assertThat(CountMinHeap.fullImageBytes(KeyKind.fiveTuples(), sized.capacity(), sized.sketch()))
                .isLessThanOrEqualTo(ImageWriter.MAX_IMAGE_BYTES);
        // the prime search for the width allocates a few MB of BigIntegers; the sketches would be 2 GB
        assertThat(allocated() - before).isLessThan(64L << 20);
    }

    /** The size-only figures agree with trackers actually built. */
    @Test
    void theSizeOnlyFiguresAreWhatTheTrackersHave() {
        KeyKind[] kinds = {KeyKind.longs(), KeyKind.fiveTuples(), KeyKind.bytes(20)};
        for (int k = 0; k < kinds.length; k++) {
            KeyKind kind = kinds[k];
            for (long budget : new long[] {10_000, 1 << 20}) {
                SpaceSaving ss = SpaceSaving.withMemory(kind, budget, 3);
                assertThat(ss.capacity()).isEqualTo(SpaceSaving.capacityForMemory(kind, budget));
                assertThat(ss.memoryBytes()).isEqualTo(SpaceSaving.memoryBytesFor(kind, ss.capacity()));
                CountMinHeap cmh = CountMinHeap.withMemory(kind, budget, 3);
                CountMinHeap.Size size = CountMinHeap.sizeForMemory(kind, budget);
                assertThat(cmh.capacity()).isEqualTo(size.capacity());
                assertThat(cmh.sketch().width()).isEqualTo(size.sketch().width());
                assertThat(cmh.memoryBytes()).isEqualTo(CountMinHeap.memoryBytesFor(kind, size.capacity(),
                        size.sketch()));
            }
            // a full tracker's image is exactly fullImageBytes
            SpaceSaving full = SpaceSaving.withCapacity(kind, 50, 1);
            CountMinHeap fullHeap = CountMinHeap.create(kind, 50, 101, 3, true, 1);
            for (long i = 0; i < 200; i++) {
                byte[] key = new byte[] {(byte) i, (byte) (i >> 8)};
                if (k == 0) {
                    full.update(i, 1);
                    fullHeap.update(i, 1);
                } else if (k == 1) {
                    full.update(io.linerate.sketches.hash.FiveTuple.ipv4((int) i, 1, 2, 3, 6), 1);
                    fullHeap.update(io.linerate.sketches.hash.FiveTuple.ipv4((int) i, 1, 2, 3, 6), 1);
                } else {
                    full.update(key, 0, key.length, 1);
                    fullHeap.update(key, 0, key.length, 1);
                }
            }
            assertThat(full.toByteArray()).hasSize((int) SpaceSaving.fullImageBytes(kind, 50));
            assertThat(fullHeap.toByteArray()).hasSize((int) CountMinHeap.fullImageBytes(kind, 50,
                    new CountMinSketch.Size(101, 3)));
        }
    }
}
