package io.linerate.flink.heavyhitters;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.java.typeutils.ListTypeInfo;
import org.apache.flink.api.java.typeutils.PojoField;
import org.apache.flink.api.java.typeutils.PojoTypeInfo;

/**
 * The heavy hitters of one scope key in one event-time window {@code [windowStart, windowEnd)}, emitted when the
 * watermark passes {@code windowEnd − 1}.
 *
 * <p>{@code items} holds the top {@code k} items (ranked by guaranteed weight) and every item whose upper bound is
 * ≥ φ·N, heaviest first. Every item the tracker does not monitor weighs at most {@code unmonitoredBound} in the
 * window, and an item it monitors but does not list (outside the top k) has an upper bound below φ·N, so every item
 * not listed weighs at most max({@code unmonitoredBound}, φ·N); when {@code complete}
 * ({@code unmonitoredBound < φ·N}) no item of true weight ≥ φ·N is missing. With Space-Saving of
 * capacity m on a tumbling window, {@code unmonitoredBound ≤ N/m}.
 *
 * <p>A Flink POJO of plain fields; {@link #typeInfo} gives its type information with the key's own type
 * information and an explicit list type, so nothing goes through Kryo.
 */
public final class HeavyHitterReport<K> {

    /** The scope key (observation point, link, tenant). */
    public K key;
    /** Window start, inclusive, epoch milliseconds. */
    public long windowStart;
    /** Window end, exclusive, epoch milliseconds. */
    public long windowEnd;
    /** N: the total weight of the window's records. */
    public long totalWeight;
    /** The φ the report was built with. */
    public double phi;
    /**
     * The largest weight an item the tracker does not monitor can have in the window; an unlisted item it monitors is
     * below φ·N (else it would be listed).
     */
    public long unmonitoredBound;
    /** Whether no item of true weight ≥ φ·N can be missing ({@code unmonitoredBound < φ·N}). */
    public boolean complete;
    /** Top-k and possible heavy hitters, heaviest first. */
    public List<ReportedItem> items = new ArrayList<>();

    /** An empty report, for Flink's POJO serializer. */
    public HeavyHitterReport() {
    }

    /** Type information of {@code HeavyHitterReport<K>} for keys of type {@code keyType}. */
    @SuppressWarnings({"unchecked", "rawtypes"})
    public static <K> TypeInformation<HeavyHitterReport<K>> typeInfo(TypeInformation<K> keyType) {
        Objects.requireNonNull(keyType, "keyType");
        try {
            Class<HeavyHitterReport> c = HeavyHitterReport.class;
            return (TypeInformation) new PojoTypeInfo<>(c, List.of(
                    new PojoField(c.getField("key"), keyType),
                    new PojoField(c.getField("windowStart"), Types.LONG),
                    new PojoField(c.getField("windowEnd"), Types.LONG),
                    new PojoField(c.getField("totalWeight"), Types.LONG),
                    new PojoField(c.getField("phi"), Types.DOUBLE),
                    new PojoField(c.getField("unmonitoredBound"), Types.LONG),
                    new PojoField(c.getField("complete"), Types.BOOLEAN),
                    new PojoField(c.getField("items"), new ListTypeInfo<>(itemTypeInfo()))));
        } catch (NoSuchFieldException e) {
            throw new AssertionError(e);
        }
    }

    /** Type information of {@link ReportedItem}: a POJO of a string, three longs and a boolean. */
    public static TypeInformation<ReportedItem> itemTypeInfo() {
        return Types.POJO(ReportedItem.class);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof HeavyHitterReport<?> r && Objects.equals(key, r.key) && windowStart == r.windowStart
                && windowEnd == r.windowEnd && totalWeight == r.totalWeight && phi == r.phi
                && unmonitoredBound == r.unmonitoredBound && complete == r.complete && Objects.equals(items, r.items);
    }

    @Override
    public int hashCode() {
        return Objects.hash(key, windowStart, windowEnd, totalWeight, unmonitoredBound, items);
    }

    /** {@code HH{key [start,end) N=.. bound=.. complete: item=est[lo..hi]*, ...}}. */
    @Override
    public String toString() {
        return "HH{" + key + " [" + windowStart + "," + windowEnd + ") N=" + totalWeight + " bound="
                + unmonitoredBound + (complete ? " complete" : " incomplete") + ": " + items + "}";
    }
}
