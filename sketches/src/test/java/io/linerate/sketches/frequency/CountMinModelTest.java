package io.linerate.sketches.frequency;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.linerate.sketches.hash.ItemHasher;
import io.linerate.sketches.image.ImageReader;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * Model-based checks of {@link CountMinSketch} and {@link BlockedCountMinSketch} against an exact map of true
 * weights (fixed seeds): every documented invariant after random streams, merges, image round trips and saturation.
 */
class CountMinModelTest {

    private static final BigInteger MAX = BigInteger.valueOf(Long.MAX_VALUE);
    private static final int[] WIDTHS = {11, 13, 31, 61};

    record Update(long key, long weight) {
    }

    /** A skewed stream over {@code keys} keys; weights 0 about one time in ten, up to {@code maxWeight} otherwise. */
    static List<Update> stream(SplittableRandom r, int n, int keys, long maxWeight) {
        List<Update> s = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            long key = (long) Math.floor(Math.pow(r.nextDouble(), 3) * keys);
            long w = r.nextInt(10) == 0 ? 0 : 1 + r.nextLong(maxWeight);
            s.add(new Update(key, w));
        }
        return s;
    }

    static Map<Long, BigInteger> model(List<Update> s) {
        Map<Long, BigInteger> m = new HashMap<>();
        for (Update u : s) {
            m.merge(u.key, BigInteger.valueOf(u.weight), BigInteger::add);
        }
        return m;
    }

    static long capped(BigInteger v) {
        return v.min(MAX).longValueExact();
    }

    static BigInteger total(List<Update> s) {
        return s.stream().map(u -> BigInteger.valueOf(u.weight)).reduce(BigInteger.ZERO, BigInteger::add);
    }

    /** The invariants that hold for every sketch whatever its history. */
    static void checkInvariants(CountMinSketch s, Map<Long, BigInteger> model, BigInteger n, String what) {
        checkInvariants(s, model, n, what, !s.isConservative());
    }

    /** {@code plainHistory}: every update and merged sketch was plain, so each row sums to N exactly. */
    static void checkInvariants(CountMinSketch s, Map<Long, BigInteger> model, BigInteger n, String what,
                                boolean plainHistory) {
        assertThat(s.totalWeight()).as("%s: N", what).isEqualTo(capped(n));
        for (Map.Entry<Long, BigInteger> e : model.entrySet()) {
            assertThat(s.estimate(e.getKey())).as("%s: estimate of %d >= true", what, e.getKey())
                    .isGreaterThanOrEqualTo(capped(e.getValue()));
        }
        for (int row = 0; row < s.depth(); row++) {
            BigInteger sum = BigInteger.ZERO;
            for (int col = 0; col < s.width(); col++) {
                long c = s.counter(row, col);
                assertThat(c).as("%s: counter (%d, %d) in [0, N]", what, row, col).isBetween(0L, s.totalWeight());
                sum = sum.add(BigInteger.valueOf(c));
            }
            if (n.compareTo(MAX) < 0) {
                if (!plainHistory) {
                    assertThat(sum).as("%s: row %d sum <= N", what, row).isLessThanOrEqualTo(n);
                } else {
                    assertThat(sum).as("%s: row %d sum == N", what, row).isEqualTo(n);
                }
            }
        }
        // the image reads back as the same sketch, both ways
        byte[] image = s.toByteArray();
        assertThat(s.imageBytes()).isEqualTo(image.length);
        CountMinSketch back = CountMinSketch.fromByteArray(image);
        assertThat(back.toByteArray()).as("%s: image round trip", what).isEqualTo(image);
        int[] at = {0};
        CountMinSketch streamed = CountMinSketch.readImage(new ImageReader.Source() {
            @Override
            public void read(byte[] bytes, int offset, int length) {
                System.arraycopy(image, at[0], bytes, offset, length);
                at[0] += length;
            }

            @Override
            public int chunkBytes() {
                return 16;
            }
        }, image.length);
        assertThat(streamed.toByteArray()).as("%s: streamed image round trip", what).isEqualTo(image);
        for (Long key : model.keySet()) {
            assertThat(back.estimate(key)).isEqualTo(s.estimate(key));
        }
    }

    static CountMinSketch run(CountMinSketch s, List<Update> updates) {
        for (Update u : updates) {
            s.update(u.key, u.weight);
        }
        return s;
    }

    @Test
    void randomStreamsKeepEveryInvariantForEveryIndexingAndUpdateRule() {
        SplittableRandom r = new SplittableRandom(20261127);
        for (int trial = 0; trial < 40; trial++) {
            RowIndexing indexing = RowIndexing.values()[trial % 3];
            int width = WIDTHS[r.nextInt(WIDTHS.length)];
            int depth = 1 + r.nextInt(6);
            long seed = r.nextLong();
            List<Update> updates = stream(r, 1 + r.nextInt(3000), 1 + r.nextInt(400), 1 + r.nextLong(1000));
            Map<Long, BigInteger> model = model(updates);
            BigInteger n = total(updates);
            String what = trial + " " + indexing + " " + width + "x" + depth;
            CountMinSketch plain = CountMinSketch.withShape(width, depth, seed, indexing, false);
            CountMinSketch conservative = CountMinSketch.withShape(width, depth, seed, indexing, true);
            CountMinSketch checked = CountMinSketch.withShape(width, depth, seed, indexing, false);
            for (Update u : updates) {
                plain.update(u.key, u.weight);
                conservative.update(u.key, u.weight);
                long h1 = checked.hasher().hash(u.key);
                long after = checked.updateAndEstimate(h1, ItemHasher.h2(h1), u.weight);
                assertThat(after).isEqualTo(checked.estimate(u.key));
            }
            assertThat(checked.toByteArray()).isEqualTo(plain.toByteArray());
            checkInvariants(plain, model, n, what + " plain");
            checkInvariants(conservative, model, n, what + " conservative");
            for (Long key : model.keySet()) {
                assertThat(conservative.estimate(key)).as("conservative <= plain").isLessThanOrEqualTo(
                        plain.estimate(key));
            }
            // a copy, and a sketch read from the image, go on exactly as the original
            List<Update> more = stream(r, 500, 400, 1000);
            for (CountMinSketch s : new CountMinSketch[] {plain, conservative}) {
                CountMinSketch copy = s.copy();
                CountMinSketch read = CountMinSketch.fromByteArray(s.toByteArray());
                byte[] before = s.toByteArray();
                run(s, more);
                run(read, more);
                assertThat(copy.toByteArray()).as("copy independent").isEqualTo(before);
                run(copy, more);
                assertThat(read.toByteArray()).isEqualTo(s.toByteArray());
                assertThat(copy.toByteArray()).isEqualTo(s.toByteArray());
            }
        }
    }

    @Test
    void mergesAreUpperBoundsCommuteAndEqualTheUnionForPlainUpdate() {
        SplittableRandom r = new SplittableRandom(7);
        for (int trial = 0; trial < 40; trial++) {
            RowIndexing indexing = RowIndexing.values()[trial % 3];
            int width = WIDTHS[r.nextInt(WIDTHS.length)];
            int depth = 1 + r.nextInt(6);
            long seed = r.nextLong();
            List<Update> all = stream(r, 2000, 300, 100);
            List<Update> left = new ArrayList<>();
            List<Update> right = new ArrayList<>();
            for (Update u : all) {
                (r.nextBoolean() ? left : right).add(u);
            }
            Map<Long, BigInteger> model = model(all);
            BigInteger n = total(all);
            for (boolean leftConservative : new boolean[] {false, true}) {
                for (boolean rightConservative : new boolean[] {false, true}) {
                    String what = trial + " " + indexing + " " + leftConservative + "+" + rightConservative;
                    CountMinSketch a = run(CountMinSketch.withShape(width, depth, seed, indexing, leftConservative),
                            left);
                    CountMinSketch b = run(CountMinSketch.withShape(width, depth, seed, indexing, rightConservative),
                            right);
                    CountMinSketch ab = a.copy();
                    ab.merge(b);
                    CountMinSketch ba = b.copy();
                    ba.merge(a);
                    assertThat(ab.isConservative()).isEqualTo(leftConservative);
                    boolean plain = !leftConservative && !rightConservative;
                    checkInvariants(ab, model, n, what + " a+b", plain);
                    checkInvariants(ba, model, n, what + " b+a", plain);
                    for (int row = 0; row < depth; row++) {
                        for (int col = 0; col < width; col++) {
                            assertThat(ab.counter(row, col)).isEqualTo(ba.counter(row, col));
                        }
                    }
                    CountMinSketch union = run(CountMinSketch.withShape(width, depth, seed, indexing, false), all);
                    if (!leftConservative && !rightConservative) {
                        assertThat(ab.toByteArray()).as("%s: merge is the union's sketch", what)
                                .isEqualTo(union.toByteArray());
                    }
                    for (Long key : model.keySet()) {
                        assertThat(ab.estimate(key)).as("%s: within the plain union's", what)
                                .isLessThanOrEqualTo(union.estimate(key));
                    }
                }
            }
        }
    }

    @Test
    void saturationNearLongMaxValueKeepsUpperBoundsAndValidImages() {
        SplittableRandom r = new SplittableRandom(99);
        long[] big = {Long.MAX_VALUE, Long.MAX_VALUE - 1, Long.MAX_VALUE / 2, Long.MAX_VALUE / 2 + 1,
                Long.MAX_VALUE / 3, 1L << 62, 1, 0, 2};
        for (int trial = 0; trial < 60; trial++) {
            RowIndexing indexing = RowIndexing.values()[trial % 3];
            boolean conservative = trial % 2 == 1;
            int width = WIDTHS[r.nextInt(2)];
            int depth = 1 + r.nextInt(4);
            List<Update> updates = new ArrayList<>();
            int count = 1 + r.nextInt(12);
            for (int i = 0; i < count; i++) {
                long w = r.nextInt(3) == 0 ? big[r.nextInt(big.length)] : r.nextLong(1L << 61);
                updates.add(new Update(r.nextInt(20), w));
            }
            String what = trial + " " + indexing + (conservative ? " conservative" : "");
            CountMinSketch s = CountMinSketch.withShape(width, depth, 3, indexing, conservative);
            List<Update> prefix = new ArrayList<>();
            for (Update u : updates) {
                s.update(u.key, u.weight);
                prefix.add(u);
                checkInvariants(s, model(prefix), total(prefix), what + " after " + prefix.size());
            }
            // halves merged saturate the same way
            CountMinSketch a = CountMinSketch.withShape(width, depth, 3, indexing, conservative);
            CountMinSketch b = CountMinSketch.withShape(width, depth, 3, indexing, conservative);
            for (int i = 0; i < updates.size(); i++) {
                (i % 2 == 0 ? a : b).update(updates.get(i).key, updates.get(i).weight);
            }
            a.merge(b);
            checkInvariants(a, model(updates), total(updates), what + " merged");
        }
    }

    @Test
    void negativeWeightsAreRefusedNamingTheWeightAndChangeNothing() {
        for (RowIndexing indexing : RowIndexing.values()) {
            for (boolean conservative : new boolean[] {false, true}) {
                CountMinSketch s = CountMinSketch.withShape(13, 3, 5, indexing, conservative);
                s.update(1L, 10);
                byte[] before = s.toByteArray();
                for (long w : new long[] {-1, Long.MIN_VALUE}) {
                    assertThatThrownBy(() -> s.update(1L, w)).isInstanceOf(IllegalArgumentException.class)
                            .hasMessage("weight must be ≥ 0, got " + w);
                    assertThatThrownBy(() -> s.update("x", w)).hasMessageContaining("weight");
                    assertThatThrownBy(() -> s.update(new byte[3], 0, 3, w)).hasMessageContaining("weight");
                    assertThatThrownBy(() -> s.updateAndEstimate(1, 2, w)).hasMessageContaining("weight");
                    assertThat(s.toByteArray()).isEqualTo(before);
                }
            }
        }
        BlockedCountMinSketch b = BlockedCountMinSketch.withBlocks(4, 5);
        b.update(1L, 10);
        byte[] before = b.toByteArray();
        for (long w : new long[] {-1, Long.MIN_VALUE}) {
            assertThatThrownBy(() -> b.update(1L, w)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("weight must be ≥ 0, got " + w);
            assertThat(b.toByteArray()).isEqualTo(before);
        }
    }

    /**
     * fromErrors against the formulas of its Javadoc and the research notes (§2.8): w the smallest prime ≥ 2e/ε,
     * d = ⌈ln(1/(ε(1 − 1/(2e²))))⌉ rows per copy and r = ⌈ln(1/δ)/ln(1/ε)⌉ copies, the smallest r with ε^r ≤ δ,
     * checked in exact decimal arithmetic for δ = ε^k (where the ratio is the integer k), and the research notes'
     * parameter table.
     */
    @Test
    void sizingFromErrorsFollowsTheFormulasAlsoWhenDeltaIsAPowerOfEpsilon() {
        double[][] table = {{0.1, 0.1, 59, 3}, {0.1, 0.01, 59, 6}, {0.01, 0.01, 547, 5}, {0.01, 0.001, 547, 10},
                {0.01, 1e-6, 547, 15}, {0.001, 0.001, 5437, 7}, {0.001, 1e-6, 5437, 14}};
        for (double[] row : table) {
            CountMinSketch.Size size = CountMinSketch.sizeFromErrors(row[0], row[1]);
            assertThat(size).as("(%s, %s)", row[0], row[1]).isEqualTo(new CountMinSketch.Size((int) row[2],
                    (int) row[3]));
        }
        java.math.BigDecimal one = java.math.BigDecimal.ONE;
        for (String e : new String[] {"0.5", "0.25", "0.2", "0.125", "0.1", "0.09", "0.05", "0.04", "0.02", "0.01",
                "0.005", "0.004", "0.002", "0.001", "0.0005", "0.7"}) {
            java.math.BigDecimal eps = new java.math.BigDecimal(e);
            double epsilon = eps.doubleValue();
            int perCopy = CountMinSketch.rowsPerCopy(epsilon);
            assertThat(perCopy).isEqualTo(
                    (int) Math.ceil(Math.log(1 / (epsilon * (1 - 1 / (2 * Math.E * Math.E))))));
            long width = (long) Math.ceil(2 * Math.E / epsilon);
            while (!io.linerate.sketches.hash.Primes.isPrime(width)) {
                width++;
            }
            for (int k = 1; k * perCopy <= CountMinSketch.MAX_DEPTH; k++) {
                double delta = eps.pow(k).doubleValue(); // δ = ε^k as a user would write it: k copies suffice
                if (delta < Double.MIN_NORMAL || delta >= 1 || eps.pow(k).compareTo(one) >= 0) {
                    break;
                }
                CountMinSketch.Size size = CountMinSketch.sizeFromErrors(epsilon, delta);
                assertThat(size).as("epsilon %s, delta %s = epsilon^%d", e, delta, k)
                        .isEqualTo(new CountMinSketch.Size((int) width, perCopy * k));
            }
            // the smallest δ the refusal message names is accepted, and a δ above it too
            int maxCopies = CountMinSketch.MAX_DEPTH / perCopy;
            double least = Math.pow(epsilon, maxCopies);
            if (least >= Double.MIN_NORMAL) {
                assertThat(CountMinSketch.sizeFromErrors(epsilon, least).depth()).as("epsilon %s", e)
                        .isEqualTo(perCopy * maxCopies);
                assertThat(CountMinSketch.sizeFromErrors(epsilon, Math.nextUp(least)).depth()).as("epsilon %s", e)
                        .isEqualTo(perCopy * maxCopies);
                assertThatThrownBy(() -> CountMinSketch.sizeFromErrors(epsilon, least * (1 - 1e-6)))
                        .hasMessageStartingWith("delta must be ≥ epsilon^" + maxCopies + " = " + least);
            }
        }
    }

    /** counter(row, column) outside the sketch is refused, not read from a neighbouring row. */
    @Test
    void counterOutsideTheShapeIsRefusedNamingRowAndColumn() {
        CountMinSketch s = CountMinSketch.withShape(11, 2, 1, RowIndexing.MIXED_32, false);
        for (long key = 0; key < 50; key++) {
            s.update(key, key + 1);
        }
        assertThat(s.counter(1, 0)).isPositive();
        assertThatThrownBy(() -> s.counter(0, 11)).isInstanceOf(IndexOutOfBoundsException.class)
                .hasMessageContaining("column");
        assertThatThrownBy(() -> s.counter(0, -1)).isInstanceOf(IndexOutOfBoundsException.class)
                .hasMessageContaining("column");
        assertThatThrownBy(() -> s.counter(2, 0)).isInstanceOf(IndexOutOfBoundsException.class)
                .hasMessageContaining("row");
    }

    // ---- blocked ----

    static void checkBlocked(BlockedCountMinSketch s, Map<Long, BigInteger> model, BigInteger n, String what) {
        assertThat(s.totalWeight()).as("%s: N", what).isEqualTo(capped(n));
        for (Map.Entry<Long, BigInteger> e : model.entrySet()) {
            assertThat(s.estimate(e.getKey())).as("%s: estimate of %d >= true", what, e.getKey())
                    .isGreaterThanOrEqualTo(capped(e.getValue()));
            // the documented estimate: the smallest of the item's four counters (N if that one is saturated); an
            // estimate from fewer counters is still an upper bound, so the check above cannot tell
            long smallest = Long.MAX_VALUE;
            for (int i : s.counterIndexes(s.hasher().hash((long) e.getKey()))) {
                smallest = Math.min(smallest, s.counter(i));
            }
            long expected = smallest == BlockedCountMinSketch.MAX_COUNTER ? Math.max(smallest, s.totalWeight())
                    : smallest;
            assertThat(s.estimate(e.getKey())).as("%s: estimate of %d, the least of its four counters", what,
                    e.getKey()).isEqualTo(expected);
        }
        BigInteger[] halves = {BigInteger.ZERO, BigInteger.ZERO};
        for (int i = 0; i < s.blocks() * BlockedCountMinSketch.BLOCK_COUNTERS; i++) {
            long c = s.counter(i);
            assertThat(c).isBetween(0L, Math.min(s.totalWeight(), BlockedCountMinSketch.MAX_COUNTER));
            halves[(i >>> 3) & 1] = halves[(i >>> 3) & 1].add(BigInteger.valueOf(c));
        }
        if (n.compareTo(BigInteger.valueOf(BlockedCountMinSketch.MAX_COUNTER)) <= 0) {
            assertThat(halves[0]).as("%s: first halves", what).isEqualTo(n.shiftLeft(1));
            assertThat(halves[1]).as("%s: second halves", what).isEqualTo(n.shiftLeft(1));
            assertThat(s.mayBeSaturated()).isEqualTo(n.longValueExact() == BlockedCountMinSketch.MAX_COUNTER);
        } else {
            assertThat(s.mayBeSaturated()).isTrue();
        }
        byte[] image = s.toByteArray();
        BlockedCountMinSketch back = BlockedCountMinSketch.fromByteArray(image);
        assertThat(back.toByteArray()).as("%s: image round trip", what).isEqualTo(image);
        for (Long key : model.keySet()) {
            assertThat(back.estimate(key)).isEqualTo(s.estimate(key));
        }
    }

    /** counterIndexes names the four distinct counters an update raises, and no other counter changes. */
    @Test
    void blockedCounterIndexesAreTheCountersAnUpdateRaises() {
        SplittableRandom r = new SplittableRandom(12);
        for (int trial = 0; trial < 200; trial++) {
            BlockedCountMinSketch s = BlockedCountMinSketch.withBlocks(2 + r.nextInt(30), r.nextLong());
            long key = r.nextLong();
            s.update(key, 1);
            java.util.Set<Integer> raised = new java.util.TreeSet<>();
            for (int i = 0; i < s.blocks() * BlockedCountMinSketch.BLOCK_COUNTERS; i++) {
                if (s.counter(i) != 0) {
                    assertThat(s.counter(i)).isEqualTo(1);
                    raised.add(i);
                }
            }
            java.util.Set<Integer> named = new java.util.TreeSet<>();
            for (int i : s.counterIndexes(s.hasher().hash(key))) {
                named.add(i);
            }
            assertThat(raised).as("trial %d", trial).hasSize(4).isEqualTo(named);
        }
    }

    @Test
    void blockedRandomStreamsMergesAndSaturation() {
        SplittableRandom r = new SplittableRandom(11);
        long m = BlockedCountMinSketch.MAX_COUNTER;
        long[] big = {m, m - 1, m / 2, m / 2 + 1, m + 1, Integer.MAX_VALUE, 1L << 31, Long.MAX_VALUE, 0, 1};
        for (int trial = 0; trial < 60; trial++) {
            int blocks = 2 + r.nextInt(6);
            long seed = r.nextLong();
            List<Update> updates;
            if (trial % 2 == 0) {
                updates = stream(r, 1 + r.nextInt(3000), 1 + r.nextInt(300), 1 + r.nextLong(1000));
            } else {
                updates = new ArrayList<>();
                for (int i = 0, c = 1 + r.nextInt(12); i < c; i++) {
                    long w = r.nextInt(2) == 0 ? big[r.nextInt(big.length)] : r.nextLong(1L << 31);
                    updates.add(new Update(r.nextInt(40), w));
                }
            }
            String what = trial + " " + blocks + " blocks";
            BlockedCountMinSketch s = BlockedCountMinSketch.withBlocks(blocks, seed);
            List<Update> prefix = new ArrayList<>();
            for (Update u : updates) {
                s.update(u.key, u.weight);
                prefix.add(u);
                if (trial % 2 == 1 || prefix.size() == updates.size()) {
                    checkBlocked(s, model(prefix), total(prefix), what + " after " + prefix.size());
                }
            }
            BlockedCountMinSketch a = BlockedCountMinSketch.withBlocks(blocks, seed);
            BlockedCountMinSketch b = BlockedCountMinSketch.withBlocks(blocks, seed);
            for (Update u : updates) {
                (r.nextBoolean() ? a : b).update(u.key, u.weight);
            }
            BlockedCountMinSketch ab = a.copy();
            ab.merge(b);
            BlockedCountMinSketch ba = b.copy();
            ba.merge(a);
            assertThat(ab.toByteArray()).as("%s: merge commutes", what).isEqualTo(ba.toByteArray());
            checkBlocked(ab, model(updates), total(updates), what + " merged");
            if (total(updates).compareTo(BigInteger.valueOf(m)) < 0) {
                assertThat(ab.toByteArray()).as("%s: merge is the union's sketch", what).isEqualTo(s.toByteArray());
            }
        }
    }
}
