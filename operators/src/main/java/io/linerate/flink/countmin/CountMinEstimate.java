package io.linerate.flink.countmin;

import io.linerate.sketches.frequency.CountMinSketch;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.java.typeutils.PojoField;
import org.apache.flink.api.java.typeutils.PojoTypeInfo;

import java.util.List;
import java.util.Objects;

/**
 * The answer to one point query of {@link CountMinQueries}: the scope, the query as it arrived, the Count-Min
 * estimate of the query's item in that scope's sketch, and the sketch's error bound at the time of the answer.
 *
 * <p>Guarantee, a the item's true weight in the scope so far and N = {@link #totalWeight}: a ≤ {@link #estimate}
 * always, and {@link #estimate} ≤ a + {@link #errorBound} (errorBound = ε·N, ε = 2e/w) with probability at least
 * 1 − e<sup>−d</sup> (≥ 1 − δ of the configured sizing). A scope that has seen no update answers 0, 0, 0.
 * Once N has saturated at {@code Long.MAX_VALUE} the true total is unknown, so no ε·N bound can be stated:
 * {@link #errorBound} is then {@code Long.MAX_VALUE} (as a double) and {@link #lowerBound} 0.
 *
 * <p>A Flink POJO whose {@code scope} and {@code query} fields keep their own type information ({@link #typeInfo}).
 */
public final class CountMinEstimate<K, Q> {

    /** The scope key the query was answered in. */
    public K scope;

    /** The query as it arrived. */
    public Q query;

    /** The estimate â: never below the true weight of the query's item. */
    public long estimate;

    /**
     * ε·N: â exceeds the true weight by more than this with probability at most e<sup>−d</sup>; {@code Long.MAX_VALUE}
     * (no bound) once N has saturated.
     */
    public double errorBound;

    /** N, the total weight the scope's sketch has taken (saturating at {@code Long.MAX_VALUE}). */
    public long totalWeight;

    /** For Flink's POJO serializer. */
    public CountMinEstimate() {
    }

    /** The answer to {@code query} in {@code scope}. */
    public CountMinEstimate(K scope, Q query, long estimate, double errorBound, long totalWeight) {
        this.scope = scope;
        this.query = query;
        this.estimate = estimate;
        this.errorBound = errorBound;
        this.totalWeight = totalWeight;
    }

    /** The smallest true weight consistent with the bound: max(0, â − ⌊ε·N⌋) (holds with probability ≥ 1 − e<sup>−d</sup>). */
    public long lowerBound() {
        return Math.max(0, estimate - (long) Math.floor(errorBound));
    }

    /**
     * The error bound an answer from {@code sketch} reports: ε·N, or {@code Long.MAX_VALUE} (no bound) when N has
     * saturated at {@code Long.MAX_VALUE}, since the true total, and so ε times it, may then be any larger value.
     */
    static double errorBound(CountMinSketch sketch) {
        return sketch.totalWeight() == Long.MAX_VALUE ? (double) Long.MAX_VALUE : sketch.errorBound();
    }

    /** Type information of {@code CountMinEstimate<K, Q>}. */
    @SuppressWarnings({"unchecked", "rawtypes"})
    public static <K, Q> TypeInformation<CountMinEstimate<K, Q>> typeInfo(TypeInformation<K> scopeType,
                                                                         TypeInformation<Q> queryType) {
        Objects.requireNonNull(scopeType, "scopeType");
        Objects.requireNonNull(queryType, "queryType");
        try {
            Class<CountMinEstimate> c = CountMinEstimate.class;
            return (TypeInformation) new PojoTypeInfo<>(c, List.of(
                    new PojoField(c.getField("scope"), scopeType),
                    new PojoField(c.getField("query"), queryType),
                    new PojoField(c.getField("estimate"), Types.LONG),
                    new PojoField(c.getField("errorBound"), Types.DOUBLE),
                    new PojoField(c.getField("totalWeight"), Types.LONG)));
        } catch (NoSuchFieldException e) {
            throw new AssertionError(e);
        }
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof CountMinEstimate<?, ?> other && Objects.equals(scope, other.scope)
                && Objects.equals(query, other.query) && estimate == other.estimate
                && Double.compare(errorBound, other.errorBound) == 0 && totalWeight == other.totalWeight;
    }

    @Override
    public int hashCode() {
        return Objects.hash(scope, query, estimate, errorBound, totalWeight);
    }

    @Override
    public String toString() {
        return "CountMinEstimate{" + scope + ", " + query + ": " + estimate + " (≤ true + " + errorBound + ", N="
                + totalWeight + ")}";
    }
}
