package io.linerate.sketches.bloom;

import io.linerate.sketches.hash.DoubleHashing;

/**
 * Bit positions of an item inside one block, for the blocked and balanced filters: k independent fields
 * carved from h2 — ⌊64/f⌋ fields of f bits per 64-bit value, the value then re-mixed (a multiply-xorshift
 * step) when its fields run out.
 *
 * <p>Why not double hashing inside a block: a block of L bits holds only L(L − 1) patterns
 * x + i·s mod L, and a query whose pattern equals a stored item's is a false positive for certain. With ~7
 * items per 256-bit block that is ~10<sup>−4</sup> per block read, against the 10<sup>−7</sup> a balanced
 * filter targets (measured here: 6·10<sup>−4</sup>), and 7% of a 1% target in a 512-bit blocked filter
 * (measured 1.07% against 0.94% expected) — the thesis's own caveat that double hashing needs more hash
 * values at very small rates (§4.7.2). A cubic polynomial with four coefficients fixed the rate but cost
 * ~17 ns per operation; independent fields give ~2<sup>9k</sup> patterns, cost a shift and a mask per
 * position, and match the model's false-positive rate (positions drawn uniformly with replacement).
 * The block itself is still chosen from h1, so one hash serves the whole filter.
 */
final class BlockProbes {

    private BlockProbes() {
    }

    /** The next 64 bits of an item's position stream, from the previous 64 (not from what is left of them). */
    static long remix(long v) {
        v = (v ^ (v >>> 31)) * 0xBF58476D1CE4E5B9L;
        return v ^ (v >>> 29);
    }

    /** Positions in [0, l) from 16-bit fields, for block widths that are not powers of two. */
    static void positions(long h2, int l, int[] out) {
        long state = h2;
        long v = h2;
        int left = 4;
        for (int i = 0; i < out.length; i++) {
            if (left == 0) {
                state = remix(state);
                v = state;
                left = 4;
            }
            out[i] = DoubleHashing.reduce16((int) v, l);
            v >>>= 16;
            left--;
        }
    }
}
