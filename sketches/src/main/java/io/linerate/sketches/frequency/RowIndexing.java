package io.linerate.sketches.frequency;

/**
 * How a {@link CountMinSketch} derives its d row indexes from an item's hash halves (h1, h2).
 */
public enum RowIndexing {
    /**
     * Thesis §3.8.2 exactly: g<sub>j</sub> = (h1 + j·h2) mod w with h1, h2 reduced into [0, w) and w prime.
     * Theorem 3.8.1 bounds the failure probability by 2/(εw²) + (2/(εw))<sup>d</sup>; the first term is
     * the all-rows collision of two items with equal h1 mod w and h2 mod w, which no depth removes.
     */
    MOD_PRIME,
    /**
     * Row j's index is the full 64-bit value h1 + j·h2, passed through a multiply-xorshift mixer and reduced
     * into [0, w) by a 64-bit multiply-high. The xorshift breaks the linearity of the progression, so the
     * 2/(εw²) all-rows term of the theorem disappears and rows behave as independent hashes. The default
     * before {@link #MIXED_32}; kept for the sketches and images made with it, and the Flink operators' default.
     */
    FULL_WIDTH,
    /**
     * The default of the sketch factories (the Flink operators keep FULL_WIDTH unless asked, since their
     * state so far holds FULL_WIDTH sketches): row j's index comes from the same mixed value as {@link #FULL_WIDTH}'s, m = mix(h1 + j·h2),
     * but is reduced from m's high 32 bits by a 32-bit multiply-shift, ⌊(m &gt;&gt;&gt; 32)·w / 2<sup>32</sup>⌋,
     * instead of a 64-bit multiply-high with a sign correction. Rows behave as independent hashes as with
     * FULL_WIDTH (the two indexings place an item in the same column except with probability below
     * w/2<sup>32</sup> per row; still, a sketch made with one cannot be read as the other, so an image
     * records which one it used). Measured on 7 rows of 1999 counters (docs/BENCHMARKS.md): an update takes
     * 21–22 ns against FULL_WIDTH's 24–25 ns, a query 19–20 against 20–23 ns. Uniform for
     * w ≤ 2<sup>28</sup>, the largest width a sketch allows, within w/2<sup>32</sup>.
     *
     * <p>A cheaper variant tried first, the 64-bit value folded to 32 bits (low half XOR high half) without the
     * mixer's multiply, fails: pairs of items sharing all d rows were 6 (d = 3, w = 1999) to 870 (d = 7, w = 29)
     * times as many as chance, because the fold leaves the progression nearly linear. {@code CountMinSketchTest}
     * counts such pairs against the chance rate C(n, 2)/w<sup>d</sup> for every indexing.
     */
    MIXED_32;

    public static RowIndexing ofId(int id) {
        RowIndexing[] all = values();
        if (id < 0 || id >= all.length) {
            throw new IllegalArgumentException("row indexing id must be in [0, " + (all.length - 1) + "], got " + id);
        }
        return all[id];
    }
}
