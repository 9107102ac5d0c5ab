package io.linerate.sketches.bloom;

import io.linerate.sketches.hash.DoubleHashing;
import io.linerate.sketches.hash.ItemHasher;
import io.linerate.sketches.hash.Primes;
import io.linerate.sketches.image.Family;
import java.util.Arrays;
import java.util.Locale;

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

    /**
     * Sized as the standard filter, m rounded up to k·p with p prime, unless the partition scheme's finite-n
     * excess (research notes §3.9: ≈ k²/(c²n), from a query whose (h1, h2) mod p equals an item's) would pass
     * 5% of {@code fpp}, or p ≥ k made the filter bigger than asked: then the smallest k·p whose {@link #falsePositiveProbability} is at most {@code fpp}.
     * That happens at small n and low fpp (n = 1000 at 10<sup>−6</sup>: the standard sizing would give 4.8·10<sup>−4</sup>);
     * the excess alone needs p ≥ √(n/fpp), so such a filter holds more bits than the standard one.
     */
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
        double q = -StrictMath.expm1(-(double) expectedItems / p);
        boolean grownToK = (bits + k - 1) / k < k; // p ≥ k made it bigger than asked: the search finds a smaller k·p
        if (!grownToK && firstOrderRate(expectedItems, k, p) - StrictMath.pow(q, k) <= fpp / 20) {
            return withBits(bits, k, seed);
        }
        long bestK = 0;
        long bestP = 0;
        for (int kk = 1; kk <= MAX_HASH_COUNT; kk++) {
            long pp = smallestPartition(expectedItems, kk, fpp);
            if (pp > 0 && (bestK == 0 || kk * pp < bestK * bestP)) {
                bestK = kk;
                bestP = pp;
            }
        }
        if (bestK == 0) {
            throw new IllegalArgumentException("expectedItems=" + expectedItems + " at fpp=" + fpp + " needs more than "
                    + MAX_BITS + " bits in a partitioned filter (its excess ≈ n/p² alone needs p ≥ √(n/fpp) = "
                    // √n/√fpp, not √(n/fpp): n/fpp overflows to Infinity for the smallest fpp (Double.MIN_VALUE)
                    + String.format(Locale.ROOT, "%.4g",
                            StrictMath.sqrt(expectedItems) / StrictMath.sqrt(fpp))
                    + " bits per partition), above the limit of " + MAX_BITS + " bits");
        }
        return new PartitionedBloomFilter(ItemHasher.seeded(seed), bestP, (int) bestK, null);
    }

    /**
     * The finite-n false-positive probability of the prime partition scheme to first order (research notes §3.9,
     * Kirsch &amp; Mitzenmacher's Theorem 6.1 specialised to prime p):
     * q<sup>k</sup> + (n/p²)·[1 − k·q<sup>k−1</sup> + (k−1)·q<sup>k</sup>] with q = 1 − e<sup>−n/p</sup>. The second
     * term is the excess over the asymptotic rate q<sup>k</sup>. StrictMath: it decides sizes, which must not
     * depend on the JVM.
     *
     * @throws IllegalArgumentException if {@code n} is not in [0, 16·(2<sup>31</sup>−1)] (0: an empty filter, rate 0),
     *     {@code k} not in [1, {@link #MAX_HASH_COUNT}] or {@code p} not in [1, {@link #MAX_BITS}] (a NaN or a
     *     negative rate otherwise)
     */
    public static double falsePositiveProbability(long n, int k, long p) {
        if (n < 0 || n > Integer.MAX_VALUE * 16L) {
            throw new IllegalArgumentException("n must be in [0, " + Integer.MAX_VALUE * 16L + "] items, got " + n);
        }
        Checks.hashCount(k);
        Checks.positive("partitionBits", p, MAX_BITS);
        return firstOrderRate(n, k, p);
    }

    /** {@link #falsePositiveProbability} without the argument checks, for the sizing's own valid arguments. */
    private static double firstOrderRate(long n, int k, long p) {
        double q = -StrictMath.expm1(-(double) n / p);
        double qk1 = StrictMath.pow(q, k - 1);
        return Math.min(1.0, qk1 * q + (double) n / ((double) p * p) * (1 - k * qk1 + (k - 1) * qk1 * q));
    }

    /**
     * The rate the search sizes by: {@link #falsePositiveProbability}, and the same first-order formula with the
     * binomial fill q = 1 − (1 − 1/p)<sup>n</sup> if that is higher. The Poisson fill 1 − e<sup>−n/p</sup> is below
     * it, by much when p is a few bits (n = 1, p = 2: 0.39 for 0.5), where the search's tiny filters live.
     */
    static double sizingRate(long n, int k, long p) {
        double q = -StrictMath.expm1(n * StrictMath.log1p(-1.0 / p));
        double qk1 = StrictMath.pow(q, k - 1);
        double binomial = Math.min(1.0, qk1 * q + (double) n / ((double) p * p) * (1 - k * qk1 + (k - 1) * qk1 * q));
        return Math.max(firstOrderRate(n, k, p), binomial);
    }

    /** The smallest prime p ≥ k with sizingRate(n, k, p) ≤ fpp and k·p ≤ MAX_BITS; −1 if none. */
    private static long smallestPartition(long n, int k, double fpp) {
        long limit = MAX_BITS / k;
        long hi = Math.max(k, 2);
        while (sizingRate(n, k, hi) > fpp) {
            if (hi >= limit) {
                return -1;
            }
            hi = Math.min(limit, hi * 2);
        }
        long lo = Math.max(k, 2) - 1; // fails or is below the range
        while (hi - lo > 1) {
            long mid = lo + (hi - lo) / 2;
            if (sizingRate(n, k, mid) <= fpp) {
                hi = mid;
            } else {
                lo = mid;
            }
        }
        // the rate is not strictly monotone in p for every (n, k): step on to the next prime that meets it
        for (long p = Primes.nextPrime(hi); p <= limit; p = Primes.nextPrime(p + 1)) {
            if (sizingRate(n, k, p) <= fpp) {
                return p;
            }
        }
        return -1;
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

    /**
     * Π<sub>i</sub> X<sub>i</sub>/p over the k partitions' fills X<sub>i</sub>, plus the partition scheme's
     * finite-n excess of {@link #falsePositiveProbability}, (n̂/p²)·[1 − k·q<sup>k−1</sup> + (k−1)·q<sup>k</sup>],
     * with q the mean fill and n̂ the {@link #approximateElementCount()}.
     */
    @Override
    public double expectedFpp() {
        double fpp = 1.0;
        long set = 0;
        for (int i = 0; i < k; i++) {
            long x = countRange(i * partitionBits, (i + 1) * partitionBits);
            set += x;
            fpp *= (double) x / partitionBits;
        }
        double q = (double) set / bitSize();
        if (q >= 1) {
            return 1.0;
        }
        double n = -(double) partitionBits * Math.log1p(-q);
        double qk1 = Math.pow(q, k - 1);
        return Math.min(1.0, fpp + n / ((double) partitionBits * partitionBits) * (1 - k * qk1 + (k - 1) * qk1 * q));
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
