package io.linerate.flink.countmin;

import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.java.typeutils.PojoField;
import org.apache.flink.api.java.typeutils.PojoTypeInfo;

import java.util.List;
import java.util.Objects;

/**
 * The estimate of one watched item in one key's window ({@link CountMinAggregate#estimatesOf}). Guarantee, a the
 * item's true weight in the window and N = {@link #totalWeight}: a ≤ {@link #estimate} always, and
 * {@link #estimate} ≤ a + {@link #errorBound} (= ε·N, ε = 2e/w) with probability ≥ 1 − e<sup>−d</sup>. Once N has
 * saturated at {@code Long.MAX_VALUE}, {@link #errorBound} is {@code Long.MAX_VALUE}: no bound.
 *
 * <p>{@link #windowStart} and {@link #windowEnd} are those of a {@code TimeWindow}; for other windows
 * {@code windowStart} is {@code Long.MIN_VALUE} and {@code windowEnd} is the window's max timestamp + 1.
 */
public final class WindowEstimate<K, Q> {

    /** The key (scope) the window belongs to. */
    public K scope;
    /** Start of the window, epoch ms, inclusive ({@code Long.MIN_VALUE} for windows other than time windows). */
    public long windowStart;
    /** End of the window, epoch ms, exclusive (the window's max timestamp + 1). */
    public long windowEnd;
    /** The watched item, as listed. */
    public Q item;
    /** The estimate â: never below the item's true weight in the window. */
    public long estimate;
    /**
     * ε·N: â exceeds the true weight by more than this with probability at most e<sup>−d</sup>;
     * {@code Long.MAX_VALUE} (no bound) once N has saturated.
     */
    public double errorBound;
    /** N, the window's total weight for the scope (saturating at {@code Long.MAX_VALUE}). */
    public long totalWeight;

    /** For Flink's POJO serializer. */
    public WindowEstimate() {
    }

    /** The estimate of {@code item} in {@code scope}'s window {@code [windowStart, windowEnd)}. */
    public WindowEstimate(K scope, long windowStart, long windowEnd, Q item, long estimate, double errorBound,
                          long totalWeight) {
        this.scope = scope;
        this.windowStart = windowStart;
        this.windowEnd = windowEnd;
        this.item = item;
        this.estimate = estimate;
        this.errorBound = errorBound;
        this.totalWeight = totalWeight;
    }

    /** Type information of {@code WindowEstimate<K, Q>}. */
    @SuppressWarnings({"unchecked", "rawtypes"})
    public static <K, Q> TypeInformation<WindowEstimate<K, Q>> typeInfo(TypeInformation<K> scopeType,
                                                                       TypeInformation<Q> itemType) {
        Objects.requireNonNull(scopeType, "scopeType");
        Objects.requireNonNull(itemType, "itemType");
        try {
            Class<WindowEstimate> c = WindowEstimate.class;
            return (TypeInformation) new PojoTypeInfo<>(c, List.of(
                    new PojoField(c.getField("scope"), scopeType),
                    new PojoField(c.getField("windowStart"), Types.LONG),
                    new PojoField(c.getField("windowEnd"), Types.LONG),
                    new PojoField(c.getField("item"), itemType),
                    new PojoField(c.getField("estimate"), Types.LONG),
                    new PojoField(c.getField("errorBound"), Types.DOUBLE),
                    new PojoField(c.getField("totalWeight"), Types.LONG)));
        } catch (NoSuchFieldException e) {
            throw new AssertionError(e);
        }
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof WindowEstimate<?, ?> other && Objects.equals(scope, other.scope)
                && windowStart == other.windowStart && windowEnd == other.windowEnd && Objects.equals(item, other.item)
                && estimate == other.estimate && Double.compare(errorBound, other.errorBound) == 0
                && totalWeight == other.totalWeight;
    }

    @Override
    public int hashCode() {
        return Objects.hash(scope, windowStart, windowEnd, item, estimate, errorBound, totalWeight);
    }

    @Override
    public String toString() {
        return "WindowEstimate{" + scope + " [" + windowStart + ", " + windowEnd + ") " + item + ": " + estimate
                + " (≤ true + " + errorBound + ", N=" + totalWeight + ")}";
    }
}
