package io.linerate.flink.countmin;

import io.linerate.flink.items.ItemSelector;
import io.linerate.flink.serializers.CountMinSketchTypeInfo;
import io.linerate.sketches.frequency.CountMinSketch;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.java.typeutils.PojoField;
import org.apache.flink.api.java.typeutils.PojoTypeInfo;

import java.util.List;
import java.util.Objects;

/**
 * One key's Count-Min sketch of one window ({@link CountMinAggregate#sketchesOf}), to query downstream with
 * {@link #estimate} or merge across keys or windows ({@link CountMinSketch#merge}, same seed and shape). The sketch is
 * serialized by {@link CountMinSketchTypeInfo}.
 *
 * <p>{@link #windowStart} and {@link #windowEnd} are those of a {@code TimeWindow}; for other windows
 * {@code windowStart} is {@code Long.MIN_VALUE} and {@code windowEnd} is the window's max timestamp + 1.
 */
public final class WindowSketch<K> {

    /** The key (scope) the window belongs to. */
    public K scope;
    /** Start of the window, epoch ms, inclusive ({@code Long.MIN_VALUE} for windows other than time windows). */
    public long windowStart;
    /** End of the window, epoch ms, exclusive (the window's max timestamp + 1). */
    public long windowEnd;
    /** The window's sketch: the window operator's accumulator itself, not a copy (see count-min.md). */
    public CountMinSketch sketch;

    /** For Flink's POJO serializer. */
    public WindowSketch() {
    }

    /** A sketch of {@code scope} over {@code [windowStart, windowEnd)}. */
    public WindowSketch(K scope, long windowStart, long windowEnd, CountMinSketch sketch) {
        this.scope = scope;
        this.windowStart = windowStart;
        this.windowEnd = windowEnd;
        this.sketch = sketch;
    }

    /** The estimate of {@code query}'s item: ≥ its true weight in the window, ≤ true + {@link #errorBound()} w.p. ≥ 1 − e<sup>−d</sup>. */
    public <Q> long estimate(ItemSelector<Q> queryItem, Q query) {
        return CountMinAggregate.estimate(sketch, queryItem, query);
    }

    /** ε·N of the window's sketch, ε = 2e/w; {@code Long.MAX_VALUE} (no bound) once N has saturated. */
    public double errorBound() {
        return CountMinEstimate.errorBound(sketch);
    }

    /** Type information of {@code WindowSketch<K>}. */
    @SuppressWarnings({"unchecked", "rawtypes"})
    public static <K> TypeInformation<WindowSketch<K>> typeInfo(TypeInformation<K> scopeType) {
        Objects.requireNonNull(scopeType, "scopeType");
        try {
            Class<WindowSketch> c = WindowSketch.class;
            return (TypeInformation) new PojoTypeInfo<>(c, List.of(
                    new PojoField(c.getField("scope"), scopeType),
                    new PojoField(c.getField("windowStart"), Types.LONG),
                    new PojoField(c.getField("windowEnd"), Types.LONG),
                    new PojoField(c.getField("sketch"), new CountMinSketchTypeInfo())));
        } catch (NoSuchFieldException e) {
            throw new AssertionError(e);
        }
    }

    @Override
    public String toString() {
        return "WindowSketch{" + scope + " [" + windowStart + ", " + windowEnd + ") " + sketch + "}";
    }
}
