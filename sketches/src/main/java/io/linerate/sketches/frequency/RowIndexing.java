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
     * The default: row j's index is the full 64-bit value h1 + j·h2, passed through a multiply-xorshift
     * mixer and reduced into [0, w). Two items collide in every row only if their whole 128-bit hashes
     * agree, so the 2/(εw²) term of the theorem disappears; rows behave as independent hashes.
     */
    FULL_WIDTH;

    public static RowIndexing ofId(int id) {
        RowIndexing[] all = values();
        if (id < 0 || id >= all.length) {
            throw new IllegalArgumentException("row indexing id must be in [0, " + (all.length - 1) + "], got " + id);
        }
        return all[id];
    }
}
