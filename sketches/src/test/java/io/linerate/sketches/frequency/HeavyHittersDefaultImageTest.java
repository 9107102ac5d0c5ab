package io.linerate.sketches.frequency;

import static org.assertj.core.api.Assertions.assertThat;

import io.linerate.sketches.hash.FiveTuple;
import io.linerate.sketches.image.ImageWriter;
import java.io.ByteArrayOutputStream;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@link HeavyHitters#writeImage}'s default, for implementations outside the library: the whole image in one piece. */
class HeavyHittersDefaultImageTest {

    /** A tracker of another library: everything delegated, {@code writeImage} not overridden. */
    private record Outside(HeavyHitters d) implements HeavyHitters {
        public void update(long item, long weight) {
            d.update(item, weight);
        }

        public void update(FiveTuple item, long weight) {
            d.update(item, weight);
        }

        public void update(byte[] bytes, int offset, int length, long weight) {
            d.update(bytes, offset, length, weight);
        }

        public List<HeavyHitter> topK(int k) {
            return d.topK(k);
        }

        public List<HeavyHitter> heavyHitters(double phi) {
            return d.heavyHitters(phi);
        }

        public long lastEstimate() {
            return d.lastEstimate();
        }

        public long lastItemHash() {
            return d.lastItemHash();
        }

        public long totalWeight() {
            return d.totalWeight();
        }

        public void merge(HeavyHitters other) {
            d.merge(other);
        }

        public HeavyHitters union(HeavyHitters other) {
            return new Outside(d.union(other));
        }

        public HeavyHitters union(java.util.List<? extends HeavyHitters> others) {
            return new Outside(d.union(others));
        }

        public long memoryBytes() {
            return d.memoryBytes();
        }

        public byte[] toByteArray() {
            return d.toByteArray();
        }

        public HeavyHitters copy() {
            return new Outside(d.copy());
        }
    }

    @Test
    void theDefaultWritesTheWholeImage() {
        SpaceSaving ss = SpaceSaving.withCapacity(KeyKind.longs(), 8, 1);
        for (long i = 0; i < 20; i++) {
            ss.update(i % 11, i);
        }
        ByteArrayOutputStream written = new ByteArrayOutputStream();
        int[] begun = {-1};
        new Outside(ss).writeImage(new ImageWriter.Sink() {
            @Override
            public void begin(int imageLength) {
                begun[0] = imageLength;
            }

            @Override
            public void write(byte[] bytes, int offset, int length) {
                written.write(bytes, offset, length);
            }
        });
        byte[] image = ss.toByteArray();
        assertThat(begun[0]).isEqualTo(image.length);
        assertThat(written.toByteArray()).isEqualTo(image);
    }
}
