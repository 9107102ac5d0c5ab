package io.linerate.flink.heavyhitters;

import java.util.List;
import java.util.Objects;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.java.typeutils.PojoField;
import org.apache.flink.api.java.typeutils.PojoTypeInfo;

/**
 * An immediate alert: inside the alert interval {@code [windowStart, windowEnd)} (the window when tumbling, the
 * slide when sliding), the estimate of {@code item} reached {@code threshold} at the record of time
 * {@code timestamp}. Emitted once per item per interval. The estimate is an upper bound of the true weight, so an
 * alert never comes later than the record at which the true weight crosses the threshold; it can come early (or for
 * an item that never truly crosses it) by at most the tracker's error (≤ N/m for Space-Saving).
 *
 * <p>A Flink POJO of plain fields; {@link #typeInfo} gives its type information with the key's own.
 */
public final class HeavyHitterAlert<K> {

    /** {@link #kind} of an alert from {@code alertAtWeight}: the estimate reached a fixed weight. */
    public static final String ABSOLUTE = "absolute";
    /** {@link #kind} of an alert from {@code alertAtFraction}: the estimate reached a fraction of the interval's weight. */
    public static final String FRACTION = "fraction";

    /** The scope key. */
    public K key;
    /** Start of the alert interval, epoch ms, inclusive. */
    public long windowStart;
    /** End of the alert interval, epoch ms, exclusive. */
    public long windowEnd;
    /** Event time of the record that made the estimate cross the threshold. */
    public long timestamp;
    /** The item, rendered as in {@link ReportedItem#item}. */
    public String item;
    /** The item's estimate right after that record. */
    public long estimate;
    /** The interval's total weight right after that record. */
    public long windowWeight;
    /** The threshold crossed, as a weight (for a fraction: ⌈fraction · windowWeight⌉). */
    public long threshold;
    /** {@link #ABSOLUTE} or {@link #FRACTION}. */
    public String kind;

    /** For Flink's POJO serializer. */
    public HeavyHitterAlert() {
    }

    /** Type information of {@code HeavyHitterAlert<K>} for keys of type {@code keyType}. */
    @SuppressWarnings({"unchecked", "rawtypes"})
    public static <K> TypeInformation<HeavyHitterAlert<K>> typeInfo(TypeInformation<K> keyType) {
        Objects.requireNonNull(keyType, "keyType");
        try {
            Class<HeavyHitterAlert> c = HeavyHitterAlert.class;
            return (TypeInformation) new PojoTypeInfo<>(c, List.of(
                    new PojoField(c.getField("key"), keyType),
                    new PojoField(c.getField("windowStart"), Types.LONG),
                    new PojoField(c.getField("windowEnd"), Types.LONG),
                    new PojoField(c.getField("timestamp"), Types.LONG),
                    new PojoField(c.getField("item"), Types.STRING),
                    new PojoField(c.getField("estimate"), Types.LONG),
                    new PojoField(c.getField("windowWeight"), Types.LONG),
                    new PojoField(c.getField("threshold"), Types.LONG),
                    new PojoField(c.getField("kind"), Types.STRING)));
        } catch (NoSuchFieldException e) {
            throw new AssertionError(e);
        }
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof HeavyHitterAlert<?> a && Objects.equals(key, a.key) && windowStart == a.windowStart
                && windowEnd == a.windowEnd && timestamp == a.timestamp && Objects.equals(item, a.item)
                && estimate == a.estimate && windowWeight == a.windowWeight && threshold == a.threshold
                && Objects.equals(kind, a.kind);
    }

    @Override
    public int hashCode() {
        return Objects.hash(key, windowStart, item, timestamp);
    }

    /** {@code Alert{key [start,end) @ts item=est ≥ threshold (kind, N=..)}}. */
    @Override
    public String toString() {
        return "Alert{" + key + " [" + windowStart + "," + windowEnd + ") @" + timestamp + " " + item + "=" + estimate
                + " ≥ " + threshold + " (" + kind + ", N=" + windowWeight + ")}";
    }
}
