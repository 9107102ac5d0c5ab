package io.linerate.sketches.hash;

import com.dynatrace.hash4j.hashing.Hasher64;
import com.dynatrace.hash4j.hashing.Hashing;
import java.util.Objects;

/**
 * The one hash computation every linerate structure derives its indexes from.
 *
 * <p>An item is hashed once, with hash4j's XXH3 (64-bit, seeded), to {@code h1}; {@link #h2(long)}
 * expands it to a second 64-bit half with the SplitMix64 finalizer. The pair {@code (h1, h2)} is the
 * item's 128-bit value: Bloom filters, Count-Min rows and hash-table choices all derive their indexes
 * from it by (enhanced) double hashing, g<sub>i</sub> = h1 + i·h2 + f(i) (Kirsch &amp; Mitzenmacher,
 * "Less Hashing, Same Performance", thesis §3.4; see {@link DoubleHashing}).
 *
 * <p>Why 64 bits expanded rather than hash4j's 128-bit functions: those return a {@code HashValue128}
 * object, measured here at 32 bytes allocated per call that escape analysis does not remove, and the hot
 * paths of this library allocate nothing per item. The expansion is a bijection of {@code h1}, so two
 * items agree on both halves exactly when their 64-bit hashes collide (probability 2<sup>-64</sup> per
 * pair), and the halves reduced modulo any table size behave as independent uniform values.
 *
 * <p>The seed is part of every structure's state and of its byte image: structures built with different
 * seeds cannot be merged, and an adversary who does not know the seed cannot aim keys at one counter or
 * bit. Instances are immutable and thread-safe.
 */
public final class ItemHasher {

    /** Seed used when none is given. Production jobs should pick their own, secret seed. */
    public static final long DEFAULT_SEED = 0x6C696E6572617465L; // "linerate"

    private static final ItemHasher DEFAULT = new ItemHasher(DEFAULT_SEED);

    private final long seed;
    private final Hasher64 hasher;

    private ItemHasher(long seed) {
        this.seed = seed;
        this.hasher = Hashing.xxh3_64(seed);
    }

    /** A hasher with the given seed. */
    public static ItemHasher seeded(long seed) {
        return seed == DEFAULT_SEED ? DEFAULT : new ItemHasher(seed);
    }

    /** The hasher with {@link #DEFAULT_SEED}. */
    public static ItemHasher defaultHasher() {
        return DEFAULT;
    }

    public long seed() {
        return seed;
    }

    /** h1 of a {@code long} item. */
    public long hash(long item) {
        return hasher.hashLongToLong(item);
    }

    /** h1 of {@code length} bytes of {@code bytes} starting at {@code offset}; the array is not copied. */
    public long hash(byte[] bytes, int offset, int length) {
        Objects.checkFromIndexSize(offset, length, bytes.length);
        return hasher.hashBytesToLong(bytes, offset, length);
    }

    /** h1 of a whole byte array. */
    public long hash(byte[] bytes) {
        return hasher.hashBytesToLong(bytes, 0, bytes.length);
    }

    /** h1 of the UTF-16 code units of {@code chars}. */
    public long hash(CharSequence chars) {
        return hasher.hashCharsToLong(chars);
    }

    /** h1 of a 5-tuple (IPv4 or IPv6). */
    public long hash(FiveTuple tuple) {
        return tuple.isIpv6()
                ? hashIpv6(tuple.srcHigh(), tuple.srcLow(), tuple.dstHigh(), tuple.dstLow(),
                        tuple.srcPort(), tuple.dstPort(), tuple.protocol())
                : hashIpv4((int) tuple.srcLow(), (int) tuple.dstLow(),
                        tuple.srcPort(), tuple.dstPort(), tuple.protocol());
    }

    /**
     * h1 of an IPv4 5-tuple given as primitives (no object per packet). Ports are 0..65535 and the
     * protocol 0..255; only their low 16 and 8 bits are used, as on the wire.
     */
    public long hashIpv4(int srcAddress, int dstAddress, int srcPort, int dstPort, int protocol) {
        long addresses = ((long) srcAddress << 32) | (dstAddress & 0xFFFF_FFFFL);
        return hasher.hashLongLongToLong(addresses, FiveTuple.meta(false, srcPort, dstPort, protocol));
    }

    /**
     * h1 of an IPv6 5-tuple given as primitives: each address as its high and low 64 bits (network
     * order). Hashed in two XXH3 steps of 24 bytes; a collision of the first step has probability
     * 2<sup>-64</sup>, so the result is as good as one 40-byte hash.
     */
    public long hashIpv6(long srcHigh, long srcLow, long dstHigh, long dstLow,
                         int srcPort, int dstPort, int protocol) {
        long first = hasher.hashLongLongLongToLong(srcHigh, srcLow, dstHigh);
        return hasher.hashLongLongLongToLong(first, dstLow, FiveTuple.meta(true, srcPort, dstPort, protocol));
    }

    /**
     * The second 64-bit half of an item's 128-bit value: the SplitMix64 finalizer (Stafford's
     * variant 13) of {@code h1} plus the golden-ratio increment. A bijection, so it keeps all of h1's
     * entropy, and it decorrelates the two halves so that h1 mod m and h2 mod m are independent in
     * practice.
     */
    public static long h2(long h1) {
        long z = h1 + 0x9E3779B97F4A7C15L;
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ItemHasher && ((ItemHasher) o).seed == seed;
    }

    @Override
    public int hashCode() {
        return Long.hashCode(seed);
    }

    @Override
    public String toString() {
        return "ItemHasher[xxh3_64, seed=" + seed + "]";
    }
}
