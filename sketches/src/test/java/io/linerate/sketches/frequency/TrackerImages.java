package io.linerate.sketches.frequency;

import io.linerate.sketches.image.Family;
import io.linerate.sketches.image.ImageWriter;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * Tracker images built field by field (docs/STATE-FORMAT.md, ids 7 and 8), for images a correct writer never
 * produces: a capacity far above the entries, non-canonical keys, candidate counts above the sketch.
 */
final class TrackerImages {

    private TrackerImages() {
    }

    /**
     * A Space-Saving image declaring {@code capacity} with the given entries (each the key's longs, then count and
     * error), in slot order as the heap order (valid when the counts are equal or ascending).
     */
    static byte[] spaceSaving(KeyKind kind, int capacity, long seed, long total, long[]... entries) {
        int w = kind.width();
        ImageWriter out = new ImageWriter(Family.SPACE_SAVING, SpaceSaving.IMAGE_VERSION,
                8 + 4 + 4 + 4 + 8 + 8 + 4 + entries.length * (8L * (w + 2) + 4))
                .putLong(seed).putInt(kind.id()).putInt(kind.maxBytes()).putInt(capacity).putLong(total).putLong(0)
                .putInt(entries.length);
        for (long[] e : entries) {
            out.putLongs(e, 0, w + 2);
        }
        for (int i = 0; i < entries.length; i++) {
            out.putInt(i);
        }
        return out.finish();
    }

    /**
     * A CM-heap image declaring {@code capacity} and unmonitored bound {@code bound} over {@code sketch}, with the
     * given candidates (key longs, count, error) in slot order as the heap order.
     */
    static byte[] countMinHeap(KeyKind kind, int capacity, long bound, CountMinSketch sketch, long[]... candidates) {
        byte[] cm = sketch.toByteArray();
        long[] packed = new long[(cm.length + 7) / 8];
        ByteBuffer.wrap(Arrays.copyOf(cm, packed.length * 8)).order(ByteOrder.LITTLE_ENDIAN).asLongBuffer()
                .get(packed);
        int w = kind.width();
        ImageWriter out = new ImageWriter(Family.COUNT_MIN_HEAP, CountMinHeap.IMAGE_VERSION,
                4 + 4 + 4 + 8 + 4 + 8L * packed.length + 4 + candidates.length * (8L * (w + 2) + 4))
                .putInt(kind.id()).putInt(kind.maxBytes()).putInt(capacity).putLong(bound).putInt(cm.length)
                .putLongs(packed, 0, packed.length).putInt(candidates.length);
        for (long[] c : candidates) {
            out.putLongs(c, 0, w + 2);
        }
        for (int i = 0; i < candidates.length; i++) {
            out.putInt(i);
        }
        return out.finish();
    }
}
