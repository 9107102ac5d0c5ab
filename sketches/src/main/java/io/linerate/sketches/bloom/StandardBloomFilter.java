package io.linerate.sketches.bloom;

import io.linerate.sketches.hash.DoubleHashing;
import io.linerate.sketches.hash.ItemHasher;
import io.linerate.sketches.hash.Probing;
import io.linerate.sketches.image.Family;
import java.util.Arrays;

/**
 * The standard Bloom filter over one array of m bits (thesis §2.1.2), with the k indexes of an item
 * derived from one hash by (enhanced) double hashing, g<sub>i</sub> = h1 + i·h2 + f(i) mod m (thesis
 * §3.4.2, Theorem 3.4.2: same limiting false-positive probability (1 − e<sup>−k/c</sup>)<sup>k</sup> as
 * k independent hashes). m need not be a power of two.
 */
public final class StandardBloomFilter extends BitArrayFilter {

    private final Probing probing;
    private final long[] offsets;

    private StandardBloomFilter(ItemHasher hasher, long bits, int k, Probing probing, long[] words) {
        super(hasher, bits, k, words);
        this.probing = probing;
        this.offsets = probing.offsets(k, bits);
    }

    /** Sized for {@code expectedItems} at {@code fpp}: m = ⌈−n ln f / ln²2⌉, k = round((m/n) ln 2). */
    public static StandardBloomFilter create(long expectedItems, double fpp) {
        return create(expectedItems, fpp, ItemHasher.DEFAULT_SEED);
    }

    public static StandardBloomFilter create(long expectedItems, double fpp, long seed) {
        long bits = BloomSizing.optimalBits(expectedItems, fpp);
        return new StandardBloomFilter(ItemHasher.seeded(seed), bits,
                BloomSizing.optimalHashCount(expectedItems, bits), Probing.ENHANCED_CUBIC, null);
    }

    /** Exactly {@code bits} bits and {@code hashCount} indexes per item, enhanced (cubic) double hashing. */
    public static StandardBloomFilter withBits(long bits, int hashCount, long seed) {
        return withBits(bits, hashCount, seed, Probing.ENHANCED_CUBIC);
    }

    /** Exactly {@code bits} bits, {@code hashCount} indexes per item, and the given index scheme. */
    public static StandardBloomFilter withBits(long bits, int hashCount, long seed, Probing probing) {
        return new StandardBloomFilter(ItemHasher.seeded(seed), bits, hashCount, probing, null);
    }

    /**
     * An independent copy: same seed, shape and bits (so the same image); an array copy whose set bits are counted
     * again, no other validation.
     */
    @Override
    public StandardBloomFilter copy() {
        return new StandardBloomFilter(hasher, bits, k, probing, Arrays.copyOf(words, words.length));
    }

    static StandardBloomFilter fromImage(Image image) {
        long id = image.shape();
        if (id < 0 || id >= Probing.values().length) {
            throw new IllegalArgumentException("image corrupt: probing id is " + id + ", must be in [0, "
                    + (Probing.values().length - 1) + "]");
        }
        return new StandardBloomFilter(image.hasher(), image.bits(), image.k(), Probing.ofId((int) id), image.words());
    }

    public Probing probing() {
        return probing;
    }

    @Override
    public boolean put(long h1, long h2) {
        long m = bits;
        long x = DoubleHashing.reduce(h1, m);
        long step = probing.stride(h2, m);
        boolean changed = false;
        for (int i = 0; i < k; i++) {
            long g = x + offsets[i];
            changed |= setBit(g >= m ? g - m : g);
            x += step;
            if (x >= m) {
                x -= m;
            }
        }
        return changed;
    }

    @Override
    public boolean mightContain(long h1, long h2) {
        long m = bits;
        long x = DoubleHashing.reduce(h1, m);
        long step = probing.stride(h2, m);
        for (int i = 0; i < k; i++) {
            long g = x + offsets[i];
            if (!getBit(g >= m ? g - m : g)) {
                return false;
            }
            x += step;
            if (x >= m) {
                x -= m;
            }
        }
        return true;
    }

    /** (X/m)<sup>k</sup>: the chance that k uniformly placed indexes all hit set bits. */
    @Override
    public double expectedFpp() {
        return Math.pow((double) bitCount / bits, k);
    }

    @Override
    Family family() {
        return Family.STANDARD_BLOOM;
    }

    @Override
    String shapeParameterName() {
        return "probing id";
    }

    @Override
    long shapeParameter() {
        return probing.id();
    }
}
