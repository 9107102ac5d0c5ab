package io.linerate.sketches.frequency;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.linerate.sketches.image.Family;
import io.linerate.sketches.image.ImageWriter;
import org.junit.jupiter.api.Test;

/**
 * The blocked Count-Min sketch at the ends of its ranges: the fewest blocks, weight 0, a total weight of exactly
 * {@link BlockedCountMinSketch#MAX_COUNTER} (reached without saturating, so its image must still have counter sums of
 * 2N), and bytes after an image's last field.
 */
class BlockedCountMinSketchEdgesTest {

    private static final long MAX = BlockedCountMinSketch.MAX_COUNTER;

    @Test
    void theFewestBlocksAreAccepted() {
        assertThat(BlockedCountMinSketch.withBlocks(BlockedCountMinSketch.MIN_BLOCKS, 1).blocks()).isEqualTo(2);
        assertThat(BlockedCountMinSketch.withMemory(2L * BlockedCountMinSketch.BLOCK_BYTES, 1).blocks()).isEqualTo(2);
        assertThatThrownBy(() -> BlockedCountMinSketch.withBlocks(1, 1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> BlockedCountMinSketch.withMemory(2L * BlockedCountMinSketch.BLOCK_BYTES - 1, 1))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void weightZeroChangesNothing() {
        BlockedCountMinSketch s = BlockedCountMinSketch.withBlocks(4, 1);
        s.update(5L, 3);
        byte[] before = s.toByteArray();
        s.update(5L, 0);
        s.update(6L, 0);
        assertThat(s.toByteArray()).isEqualTo(before);
        assertThat(s.estimate(5L)).isEqualTo(3);
    }

    @Test
    void aTotalOfExactlyMaxCounterMayBeSaturatedAndItsImageIsChecked() {
        BlockedCountMinSketch below = BlockedCountMinSketch.withBlocks(4, 1);
        below.update(5L, MAX - 1);
        assertThat(below.mayBeSaturated()).isFalse();
        BlockedCountMinSketch at = BlockedCountMinSketch.withBlocks(4, 1);
        at.update(5L, MAX);
        assertThat(at.mayBeSaturated()).isTrue();
        assertThat(at.estimate(5L)).isEqualTo(MAX);
        BlockedCountMinSketch read = BlockedCountMinSketch.fromByteArray(at.toByteArray());
        assertThat(read.estimate(5L)).isEqualTo(MAX);
        // N = MAX_COUNTER is reached without saturating anything: counters that lost the weight are corrupt
        byte[] zeros = image(4, MAX, new int[4 * BlockedCountMinSketch.BLOCK_COUNTERS], 0);
        assertThatThrownBy(() -> BlockedCountMinSketch.fromByteArray(zeros))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("2 × totalWeight");
    }

    @Test
    void anImageWithBytesAfterItsLastFieldIsRefused() {
        byte[] image = image(2, 0, new int[2 * BlockedCountMinSketch.BLOCK_COUNTERS], 8);
        assertThatThrownBy(() -> BlockedCountMinSketch.fromByteArray(image))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("trailing");
        assertThat(BlockedCountMinSketch.fromByteArray(image(2, 0, new int[32], 0)).totalWeight()).isZero();
    }

    /** An image field by field (docs/STATE-FORMAT.md), with {@code extra} zero bytes after the counters. */
    private static byte[] image(int blocks, long total, int[] counts, int extra) {
        ImageWriter out = new ImageWriter(Family.BLOCKED_COUNT_MIN, BlockedCountMinSketch.IMAGE_VERSION,
                8 + 4 + 8 + 4L * counts.length + extra)
                .putLong(1).putInt(blocks).putLong(total).putInts(counts, 0, counts.length);
        out.putBytes(new byte[extra], 0, extra);
        return out.finish();
    }
}
