package io.linerate.sketches.image;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import org.junit.jupiter.api.Test;

/**
 * A writer that writes more field bytes than it declared fails the same way in both modes. The array mode wrote
 * the extra bytes where the trailer goes and then said "-4 bytes left unwritten", or threw a
 * BufferOverflowException; the stream mode said "more than the 4 bytes declared".
 */
class ImageWriterSizingReviewTest {

    private static ImageWriter.Sink sink() {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        return new ImageWriter.Sink() {
            @Override
            public void begin(int imageLength) {
            }

            @Override
            public void write(byte[] bytes, int offset, int length) {
                out.write(bytes, offset, length);
            }
        };
    }

    @Test
    void writingPastTheDeclaredFieldsFailsAlikeInBothModes() {
        for (ImageWriter.Sink s : new ImageWriter.Sink[] {null, sink()}) {
            String mode = s == null ? "array" : "stream";
            assertThatThrownBy(() -> new ImageWriter(Family.COUNT_MIN, 1, 4, s).putLong(1).finish()).as(mode)
                    .isInstanceOf(IllegalStateException.class).hasMessageContaining("more than the 4 bytes declared");
            assertThatThrownBy(() -> new ImageWriter(Family.COUNT_MIN, 1, 4, s).putInt(1).putLong(1).finish()).as(mode)
                    .isInstanceOf(IllegalStateException.class).hasMessageContaining("more than the 4 bytes declared");
            assertThatThrownBy(() -> new ImageWriter(Family.COUNT_MIN, 1, 16, s).putLongs(new long[9], 0, 9)).as(mode)
                    .isInstanceOf(IllegalStateException.class).hasMessageContaining("more than the 16 bytes declared");
            assertThatThrownBy(() -> new ImageWriter(Family.COUNT_MIN, 1, 16, s).putInts(new int[5], 0, 5)).as(mode)
                    .isInstanceOf(IllegalStateException.class).hasMessageContaining("more than the 16 bytes declared");
            assertThatThrownBy(() -> new ImageWriter(Family.COUNT_MIN, 1, 3, s).putBytes(new byte[4], 0, 4)).as(mode)
                    .isInstanceOf(IllegalStateException.class).hasMessageContaining("more than the 3 bytes declared");
        }
    }
}
