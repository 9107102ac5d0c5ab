package io.linerate.sketches.image;

import io.linerate.sketches.bloom.BloomFilters;
import io.linerate.sketches.flowtable.FlowTable;
import io.linerate.sketches.frequency.BlockedCountMinSketch;
import io.linerate.sketches.frequency.CountMinHeap;
import io.linerate.sketches.frequency.CountMinSketch;
import io.linerate.sketches.frequency.SpaceSaving;
import java.io.EOFException;

/** The streamed reader ({@code readImage(source, length)}) of each family, and a source over an array. */
final class StreamedReads {

    private StreamedReads() {
    }

    /** Reads the image of {@code family} held by {@code source} with the family's streamed reader. */
    static Object read(Family family, ImageReader.Source source, int length) {
        switch (family) {
            case COUNT_MIN:
                return CountMinSketch.readImage(source, length);
            case BLOCKED_COUNT_MIN:
                return BlockedCountMinSketch.readImage(source, length);
            case SPACE_SAVING:
                return SpaceSaving.readImage(source, length);
            case COUNT_MIN_HEAP:
                return CountMinHeap.readImage(source, length);
            case FLOW_TABLE:
                return FlowTable.readImage(source, length, null);
            default:
                return BloomFilters.readImage(source, length);
        }
    }

    /** Hands out the bytes of an array in order, through a buffer of {@code chunk} bytes; EOF past its end. */
    static final class ArraySource implements ImageReader.Source {
        private final byte[] bytes;
        private final int chunk;
        int position;
        int largestRead;

        ArraySource(byte[] bytes, int chunk) {
            this.bytes = bytes;
            this.chunk = chunk;
        }

        @Override
        public void read(byte[] into, int offset, int length) throws EOFException {
            if (length > bytes.length - position) {
                int left = bytes.length - position;
                position = bytes.length;
                throw new EOFException(length + " bytes asked, " + left + " left");
            }
            System.arraycopy(bytes, position, into, offset, length);
            position += length;
            largestRead = Math.max(largestRead, length);
        }

        @Override
        public int chunkBytes() {
            return chunk;
        }
    }
}
