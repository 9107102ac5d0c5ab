package io.linerate.flink.serializers;

import io.linerate.sketches.bloom.BloomFilter;
import io.linerate.sketches.bloom.BloomFilters;
import io.linerate.sketches.image.ImageReader;

/** Reads a Bloom filter image and checks it holds the variant a serializer is for. */
final class BloomImages {

    private BloomImages() {
    }

    static <T extends BloomFilter> T read(byte[] image, Class<T> expected) {
        return holding(BloomFilters.fromByteArray(image), expected);
    }

    static <T extends BloomFilter> T read(ImageReader.Source source, int length, Class<T> expected) {
        return holding(BloomFilters.readImage(source, length), expected);
    }

    private static <T extends BloomFilter> T holding(BloomFilter f, Class<T> expected) {
        if (!expected.isInstance(f)) {
            throw new IllegalArgumentException("image holds a " + f.getClass().getSimpleName() + ", expected a "
                    + expected.getSimpleName());
        }
        return expected.cast(f);
    }
}
