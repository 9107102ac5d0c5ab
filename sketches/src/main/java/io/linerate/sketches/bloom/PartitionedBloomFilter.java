package io.linerate.sketches.bloom;

import io.linerate.sketches.hash.DoubleHashing;
import io.linerate.sketches.hash.ItemHasher;
import io.linerate.sketches.hash.Primes;
import io.linerate.sketches.image.Family;
import java.util.Arrays;

/**
 * The partitioned Bloom filter with the prime partition scheme of thesis §3.2: m = k·p bits in k
 * partitions of p bits, p prime; index i of an item is bit (h1 + i·h2) mod p of partition i.
 *
 * <p>With p prime, an item and a query share either 0, exactly 1, or all k cells, which is what Theorem
 * 3.4.1 rests on. Its finite-n false-positive probability is exactly
 * 1 − Σ<sub>j=1..k</sub> (−1)<sup>j+1</sup> C(k,j) (1 − (1 + j(p−1))/p²)<sup>n</sup> (research notes §3.4),
 * a little above the standard filter's at small n and large m/n (first-order excess ≈ k²/(c²n), §3.9).
 *
 * <p>Rounding rule: the partition size is the smallest prime ≥ max(⌈m/k⌉, k), so the filter may hold a few more
 * bits than asked for, never fewer. The property above needs p ≥ k (research notes §3.4): with p &lt; k, partition
 * i + p repeats the cell of partition i, an item and a query share 0, about k/p or all k cells, and the k·p bits
 * act as p partitions. A tiny filter (m &lt; k²) therefore gets more than a few extra bits.
 */
public final class PartitionedBloomFilter extends BitArrayFilter {

    private final long partitionBits;

    private PartitionedBloomFilter(ItemHasher hasher, long partitionBits, int k, long[] words) {
        super(hasher, Math.multiplyExact(partitionBits, (long) k), k, words);
        this.partitionBits = partitionBits;
    }

    /** Sized as the standard filter, m rounded up to k·p with p prime. */
    public static PartitionedBloomFilter create(long expectedItems, double fpp) {
        return create(expectedItems, fpp, ItemHasher.DEFAULT_SEED);
    }

    public static PartitionedBloomFilter create(long expectedItems, double fpp, long seed) {
        long bits = BloomSizing.optimalBits(expectedItems, fpp);
        int k = BloomSizing.optimalHashCount(expectedItems, bits);
        long p = Primes.nextPrime(Math.max((bits + k - 1) / k, k));
        if (p * k > MAX_BITS) { // the rounding to k prime partitions passed the limit: say it with the caller's values
            throw Checks.tooManyBits(expectedItems, fpp, (double) p * k, false);
        }
        return withBits(bits, k, seed);
    }

    /** k partitions of the smallest prime p ≥ max(⌈bits/k⌉, k) bits each (p ≥ k: see the class comment). */
    public static PartitionedBloomFilter withBits(long bits, int hashCount, long seed) {
        Checks.bits(bits);
        Checks.hashCount(hashCount);
        long p = Primes.nextPrime(Math.max((bits + hashCount - 1) / hashCount, hashCount));
        if (p * hashCount > MAX_BITS) {
            throw new IllegalArgumentException("bits=" + bits + " rounds up to " + p * hashCount
                    + ", above the limit of " + MAX_BITS + " bits");
        }
        return new PartitionedBloomFilter(ItemHasher.seeded(seed), p, hashCount, null);
    }

    /**
     * An independent copy: same seed, shape and bits (so the same image); an array copy whose set bits are counted
     * again, no other validation.
     */
    @Override
    public PartitionedBloomFilter copy() {
        return new PartitionedBloomFilter(hasher, partitionBits, k, Arrays.copyOf(words, words.length));
    }

    static PartitionedBloomFilter fromImage(Image image) {
        long p = image.shape();
        // p ≤ bitSize ≤ MAX_BITS first, so that p·k cannot overflow and wrap around to bitSize
        if (p < 2 || p > image.bits() || p * image.k() != image.bits() || !Primes.isPrime(p)) {
            throw new IllegalArgumentException("image corrupt: partition size " + p + " is not a prime with "
                    + image.k() + " x " + p + " = bitSize " + image.bits());
        }
        return new PartitionedBloomFilter(image.hasher(), p, image.k(), image.words());
    }

    /** p, the (prime) number of bits in each of the k partitions. */
    public long partitionBits() {
        return partitionBits;
    }

    @Override
    public boolean put(long h1, long h2) {
        long p = partitionBits;
        long x = DoubleHashing.reduce(h1, p);
        long step = DoubleHashing.reduce(h2, p);
        long base = 0;
        boolean changed = false;
        for (int i = 0; i < k; i++) {
            changed |= setBit(base + x);
            base += p;
            x += step;
            if (x >= p) {
                x -= p;
            }
        }
        return changed;
    }

    @Override
    public boolean mightContain(long h1, long h2) {
        long p = partitionBits;
        long x = DoubleHashing.reduce(h1, p);
        long step = DoubleHashing.reduce(h2, p);
        long base = 0;
        for (int i = 0; i < k; i++) {
            if (!getBit(base + x)) {
                return false;
            }
            base += p;
            x += step;
            if (x >= p) {
                x -= p;
            }
        }
        return true;
    }

    /** Π<sub>i</sub> X<sub>i</sub>/p over the k partitions' fills X<sub>i</sub>. */
    @Override
    public double expectedFpp() {
        double fpp = 1.0;
        for (int i = 0; i < k; i++) {
            fpp *= (double) countRange(i * partitionBits, (i + 1) * partitionBits) / partitionBits;
        }
        return fpp;
    }

    private long countRange(long from, long to) {
        long c = 0;
        for (long i = from; i < to; ) {
            if ((i & 63) == 0 && to - i >= 64) {
                c += Long.bitCount(words[(int) (i >>> 6)]);
                i += 64;
            } else {
                c += getBit(i) ? 1 : 0;
                i++;
            }
        }
        return c;
    }

    @Override
    Family family() {
        return Family.PARTITIONED_BLOOM;
    }

    @Override
    String shapeParameterName() {
        return "partitionBits";
    }

    @Override
    long shapeParameter() {
        return partitionBits;
    }
}
