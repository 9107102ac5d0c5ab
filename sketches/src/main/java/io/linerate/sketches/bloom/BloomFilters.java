package io.linerate.sketches.bloom;

import io.linerate.sketches.image.Family;
import io.linerate.sketches.image.ImageReader;

/** Reads any Bloom filter variant back from its byte image. */
public final class BloomFilters {

    private BloomFilters() {
    }

    /**
     * The filter held by {@code image}.
     *
     * @throws IllegalArgumentException if the image is not a Bloom filter image of a version this library
     *     reads, is truncated, has trailing bytes, fails its checksum, or declares sizes beyond the limits of
     *     {@link BloomFilter} (checked before anything is allocated)
     */
    public static BloomFilter fromByteArray(byte[] image) {
        Family family = ImageReader.peekFamily(image);
        switch (family) {
            case STANDARD_BLOOM:
                return StandardBloomFilter.fromImage(bitArrayImage(image, family));
            case PARTITIONED_BLOOM:
                return PartitionedBloomFilter.fromImage(bitArrayImage(image, family));
            case BLOCKED_BLOOM:
                return BlockedBloomFilter.fromImage(bitArrayImage(image, family));
            case SPLIT_BLOCK_BLOOM:
                return SplitBlockBloomFilter.fromImage(bitArrayImage(image, family));
            case BALANCED_BLOOM:
                return BalancedBloomFilter.fromImage(ImageReader.open(image, family, BalancedBloomFilter.IMAGE_VERSION));
            case COUNTING_BLOOM:
                return CountingBloomFilter.fromImage(ImageReader.open(image, family, CountingBloomFilter.IMAGE_VERSION));
            default:
                throw new IllegalArgumentException("image holds a " + family + ", not a Bloom filter");
        }
    }

    private static BitArrayFilter.Image bitArrayImage(byte[] image, Family family) {
        return BitArrayFilter.Image.read(ImageReader.open(image, family, BitArrayFilter.IMAGE_VERSION));
    }
}
