package io.linerate.flink.serializers;

import io.linerate.sketches.bloom.BloomFilter;
import io.linerate.sketches.bloom.BloomFilters;

/** Reads a Bloom filter image and checks it holds the variant a serializer is for. */
final class BloomImages {

    private BloomImages() {
    }

    static <T extends BloomFilter> T read(byte[] image, Class<T> expected) {
        BloomFilter f = BloomFilters.fromByteArray(image);
        if (!expected.isInstance(f)) {
            throw new IllegalArgumentException("image holds a " + f.getClass().getSimpleName() + ", expected a "
                    + expected.getSimpleName());
        }
        return expected.cast(f);
    }
}
