package io.linerate.sketches.flowtable;

/**
 * How a {@link MultilevelTable} places a new item: the six schemes of Kirsch's thesis, chapter 5
 * ("The Power of One Move"). Every scheme moves at most one existing item per insertion; an item that
 * finds no room goes to the overflow stash (the thesis's CAM).
 *
 * <p>The default sub-table fractions α<sub>i</sub> are those of Table 5.1 (target overflow fraction
 * w = 0.2% at n items), for d = 3, 4 and 5. The thesis's own errata (research notes §9.6): the printed α
 * for SCExt at d = 3 and d = 5 and for SC2 at d = 3 do not give w = 0.2% (simulation and the differential
 * equations agree on 0.127%, 0.567% and 0.0138%); the d = 4 rows reproduce within a few percent and are
 * the validated default.
 */
public enum InsertionScheme {
    /** §5.2: the leftmost empty bucket (d-left hashing, ties to the left); never moves. */
    STANDARD(1, new double[][] {
        {1.3880, 0.8309, 0.4586},
        {0.7867, 0.5149, 0.3152, 0.1782},
        {0.544, 0.383, 0.271, 0.162, 0.098}}),
    /**
     * §5.4: when all d buckets are full, bump the occupant of the leftmost bucket not yet marked as
     * unmovable to its leftmost empty bucket further right; marks remember failed attempts.
     */
    CONSERVATIVE(1, new double[][] {
        {0.7767, 0.6062, 0.3746},
        {0.5214, 0.4134, 0.2802, 0.1774},
        {0.410, 0.329, 0.236, 0.162, 0.105}}),
    /**
     * §5.5, Figure 5.1: if x's buckets in T<sub>i</sub> and T<sub>i+1</sub> are both full, move the occupant
     * y of T<sub>i</sub>[h<sub>i</sub>(x)] to T<sub>i+1</sub>[h<sub>i+1</sub>(y)] when that is empty. The default.
     */
    SECOND_CHANCE(1, new double[][] {
        {0.7142, 0.6400, 0.2707},
        {0.4694, 0.4562, 0.2512, 0.1082},
        {0.366, 0.367, 0.239, 0.129, 0.058}}),
    /**
     * §5.6: look at every occupant of x's buckets and make the single move (or none) that fills the leftmost
     * free bucket it can reach: x's own leftmost free bucket, or an occupant's leftmost free bucket with x taking
     * the occupant's place (ties to x, then to the leftmost occupant). After deletions that occupant can sit
     * right of x's free bucket and move left into a hole. Costs up to d² bucket reads per insertion.
     */
    EXTREME_SECOND_CHANCE(1, new double[][] {
        {0.6554, 0.5500, 0.3064},
        {0.3774, 0.3624, 0.2857, 0.1276},
        {0.223, 0.223, 0.221, 0.220, 0.172}}),
    /** §5.7: Std with buckets of two items. */
    STANDARD_2(2, new double[][] {
        {0.4311, 0.2284, 0.1042},
        {0.2970, 0.1735, 0.1059, 0.0493},
        {0.239, 0.155, 0.096, 0.054, 0.026}}),
    /** §5.7: second chance with buckets of two items; the first of the two occupants that can move does. */
    SECOND_CHANCE_2(2, new double[][] {
        {0.2668, 0.2665, 0.0744},
        {0.2048, 0.1961, 0.0954, 0.0299},
        {0.171, 0.171, 0.107, 0.048, 0.016}});

    private final int bucketCapacity;
    private final double[][] alphas;

    InsertionScheme(int bucketCapacity, double[][] alphas) {
        this.bucketCapacity = bucketCapacity;
        this.alphas = alphas;
    }

    /** Items per bucket: 1, or 2 for {@link #STANDARD_2} and {@link #SECOND_CHANCE_2}. */
    public int bucketCapacity() {
        return bucketCapacity;
    }

    /**
     * Table 5.1's α<sub>1</sub>..α<sub>d</sub> (buckets of sub-table i per item) for d = 3, 4 or 5.
     *
     * @throws IllegalArgumentException for other d, naming the supported range
     */
    public double[] defaultAlphas(int d) {
        if (d < 3 || d > 5) {
            throw new IllegalArgumentException("levels must be 3, 4 or 5 to take the sub-table sizes from thesis "
                    + "Table 5.1, got " + d + "; give explicit bucket counts for other depths");
        }
        return alphas[d - 3].clone();
    }

    public static InsertionScheme ofId(int id) {
        InsertionScheme[] all = values();
        if (id < 0 || id >= all.length) {
            throw new IllegalArgumentException("insertion scheme id must be in [0, " + (all.length - 1) + "], got "
                    + id);
        }
        return all[id];
    }
}
