package io.linerate.sketches.image;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.linerate.sketches.bloom.BalancedParameters;
import io.linerate.sketches.bloom.BloomFilters;
import io.linerate.sketches.frequency.BlockedCountMinSketch;
import io.linerate.sketches.frequency.SpaceSaving;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import org.junit.jupiter.api.Test;

/**
 * The two oversized-image findings of the fuzz tests, as fixed regressions, and the largest size a blocked Count-Min
 * image may declare on a small image.
 */
class OversizedImageTest {

    private static byte[] seed(String name) {
        return ImageUpgradeTest.committed(ImageRecipes.all().values().stream()
                .filter(r -> r.name.equals(name)).findFirst().orElseThrow());
    }

    @Test
    void balancedFilterOverflowCapacityIsTiedToTheFilterSize() {
        byte[] image = seed("balanced-bloom");
        ByteBuffer b = ByteBuffer.wrap(image).order(ByteOrder.LITTLE_ENDIAN);
        int d = b.getInt(20);
        // overflowCapacity: 3·2^27 entries, the most a table can hold (2^29 slots, 8 GiB), far above 2·bits + 16
        b.putInt(24 + 8 * d + 32, BalancedParameters.MAX_OVERFLOW_CAPACITY);
        byte[] hostile = HostileImages.fixUp(image, Family.BALANCED_BLOOM);
        assertThatThrownBy(() -> BloomFilters.fromByteArray(hostile))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("overflowCapacity must be at most");
        assertThat(HostileImages.check(Family.BALANCED_BLOOM, hostile))
                .isEqualTo(HostileImages.Outcome.REJECTED_AFTER_CHECKSUM);
    }

    @Test
    void balancedFilterOverflowCapacityAboveTheTableLimitIsRejectedBeforeAllocating() {
        // 393,217 blocks of 512 bits (25 MB of words) allow 2·bits + 16 entries by the size tie, more than the
        // 402,653,184 an overflow table of 2^29 slots holds: reading used to end in a NegativeArraySizeException
        long blocks = 393_217;
        long words = blocks * 8;
        ImageWriter w = new ImageWriter(Family.BALANCED_BLOOM, 1,
                8 + 4 + 4 + 8 + 4 + 4 + 8 + 8 + 8 + 4 + 8 + 8 + 4 + 8 * words)
                .putLong(1).putInt(512).putInt(1).putLong(blocks)
                .putInt(8).putInt(14).putDouble(0.375).putLong(100).putLong(Long.MAX_VALUE)
                .putInt(BalancedParameters.MAX_OVERFLOW_CAPACITY + 1)
                .putLong(0).putLong(0).putInt(0);
        w.putLongs(new long[(int) words], 0, (int) words);
        byte[] image = w.finish();
        assertThatThrownBy(() -> BloomFilters.fromByteArray(image))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("overflowCapacity")
                .hasMessageContaining(String.valueOf(BalancedParameters.MAX_OVERFLOW_CAPACITY));
    }

    @Test
    void trackerCapacityBeyondTheArrayLimitIsRejectedNotAnArithmeticException() {
        // an empty Space-Saving tracker of 1024-byte keys (129 longs each) claiming 2^26 counters
        byte[] image = new ImageWriter(Family.SPACE_SAVING, 1, 8 + 4 + 4 + 4 + 8 + 8 + 4)
                .putLong(1).putInt(2).putInt(1024).putInt(SpaceSaving.MAX_CAPACITY).putLong(0).putLong(0).putInt(0)
                .finish();
        // refused by the capacity check that withCapacity makes (a full tracker's image would not fit one image)
        assertThatThrownBy(() -> SpaceSaving.fromByteArray(image))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("capacity " + SpaceSaving.MAX_CAPACITY + " is too large for BYTES(1024) keys");
        assertThat(HostileImages.check(Family.SPACE_SAVING, image))
                .isEqualTo(HostileImages.Outcome.REJECTED_AFTER_CHECKSUM);
    }

    @Test
    void blockedCountMinClaimingTheMostBlocksIsRejectedBeforeAllocating() {
        // 2^24 blocks (2^28 counters, 1 GiB) declared by a 2 KB image: the counts are refused as truncated
        byte[] image = seed("blocked-count-min");
        ByteBuffer.wrap(image).order(ByteOrder.LITTLE_ENDIAN).putInt(16, BlockedCountMinSketch.MAX_BLOCKS);
        byte[] hostile = HostileImages.fixUp(image, Family.BLOCKED_COUNT_MIN);
        assertThatThrownBy(() -> BlockedCountMinSketch.fromByteArray(hostile))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("field counts needs " + (4L << 28) + " bytes");
        assertThat(HostileImages.check(Family.BLOCKED_COUNT_MIN, hostile))
                .isEqualTo(HostileImages.Outcome.REJECTED_AFTER_CHECKSUM);
    }
}
