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
        return read(ImageReader.open(image, BloomFilters::maxVersion));
    }

    /**
     * Reads the filter whose image of {@code length} bytes comes from {@code source}, through a small buffer
     * straight into the filter's arrays (no array of the image's size), with the validation and messages of
     * {@link #fromByteArray}; takes exactly {@code length} bytes from the source either way.
     *
     * @throws java.io.UncheckedIOException if the source fails
     */
    public static BloomFilter readImage(ImageReader.Source source, int length) {
        return ImageReader.read(source, length, BloomFilters::maxVersion, BloomFilters::read);
    }

    private static int maxVersion(Family family) {
        switch (family) {
            case STANDARD_BLOOM:
            case PARTITIONED_BLOOM:
            case BLOCKED_BLOOM:
            case SPLIT_BLOCK_BLOOM:
                return BitArrayFilter.IMAGE_VERSION;
            case BALANCED_BLOOM:
                return BalancedBloomFilter.IMAGE_VERSION;
            case COUNTING_BLOOM:
                return CountingBloomFilter.IMAGE_VERSION;
            default:
                throw new IllegalArgumentException("image holds a " + family + ", not a Bloom filter");
        }
    }

    private static BloomFilter read(ImageReader in) {
        switch (in.family()) {
            case STANDARD_BLOOM:
                return StandardBloomFilter.fromImage(BitArrayFilter.Image.read(in));
            case PARTITIONED_BLOOM:
                return PartitionedBloomFilter.fromImage(BitArrayFilter.Image.read(in));
            case BLOCKED_BLOOM:
                return BlockedBloomFilter.fromImage(BitArrayFilter.Image.read(in));
            case SPLIT_BLOCK_BLOOM:
                return SplitBlockBloomFilter.fromImage(BitArrayFilter.Image.read(in));
            case BALANCED_BLOOM:
                return BalancedBloomFilter.fromImage(in);
            case COUNTING_BLOOM:
                return CountingBloomFilter.fromImage(in);
            default:
                throw new IllegalStateException("not a Bloom filter family: " + in.family()); // maxVersion refused it
        }
    }
}
