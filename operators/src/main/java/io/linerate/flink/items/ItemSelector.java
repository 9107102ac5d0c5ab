package io.linerate.flink.items;

import io.linerate.sketches.frequency.HeavyHitters;
import io.linerate.sketches.frequency.KeyKind;
import io.linerate.sketches.hash.FiveTuple;
import io.linerate.sketches.hash.ItemHasher;

import java.io.Serializable;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Locale;
import java.util.Objects;

/**
 * Which part of a record is the item a sketch counts or remembers: a {@code long}, a string, a byte string or a
 * packet 5-tuple. One selector serves every operator, so the same record type can feed heavy hitters,
 * Count-Min, deduplication and the flow meter.
 *
 * <p>Each item is hashed once per record ({@link #hash}); the structures derive all their indexes from that one
 * value by double hashing. Strings are hashed over their UTF-16 chars and tracked (heavy hitters) as UTF-8 bytes.
 *
 * <p>A selector that meets an item it cannot take throws {@link IllegalArgumentException} naming the limit; the
 * operators catch it and send the record to their malformed-records output. A null item is never taken. The
 * {@link #maxBytes()} limit applies only where items are stored ({@link #addTo}, heavy-hitter trackers): hashing
 * for Count-Min or Bloom filters takes a string or byte string of any length, since those keep no items.
 */
public abstract class ItemSelector<T> implements Serializable {

    private static final long serialVersionUID = 1L;

    /** Default longest byte or string item a heavy-hitter tracker keeps, in bytes. */
    public static final int DEFAULT_MAX_BYTES = 64;

    private ItemSelector() {
    }

    /** Items are {@code long}s (ids, addresses, pre-hashed keys). */
    public static <T> ItemSelector<T> longs(LongOf<T> item) {
        return new Longs<>(Objects.requireNonNull(item, "item"));
    }

    /** Items are packet 5-tuples (IPv4 or IPv6). */
    public static <T> ItemSelector<T> fiveTuples(TupleOf<T> item) {
        return new Tuples<>(Objects.requireNonNull(item, "item"));
    }

    /** Items are strings of at most {@value #DEFAULT_MAX_BYTES} UTF-8 bytes. */
    public static <T> ItemSelector<T> strings(TextOf<T> item) {
        return strings(item, DEFAULT_MAX_BYTES);
    }

    /** Items are strings of at most {@code maxBytes} UTF-8 bytes (1 … {@value KeyKind#MAX_BYTES_LIMIT}). */
    public static <T> ItemSelector<T> strings(TextOf<T> item, int maxBytes) {
        return new Texts<>(Objects.requireNonNull(item, "item"), checkMaxBytes(maxBytes));
    }

    /** Items are byte strings of at most {@value #DEFAULT_MAX_BYTES} bytes. */
    public static <T> ItemSelector<T> bytes(BytesOf<T> item) {
        return bytes(item, DEFAULT_MAX_BYTES);
    }

    /** Items are byte strings of at most {@code maxBytes} bytes (1 … {@value KeyKind#MAX_BYTES_LIMIT}). */
    public static <T> ItemSelector<T> bytes(BytesOf<T> item, int maxBytes) {
        return new Bytes<>(Objects.requireNonNull(item, "item"), checkMaxBytes(maxBytes));
    }

    /** The key kind a heavy-hitter tracker of these items is built for. */
    public abstract KeyKind keyKind();

    /** Longest byte or string item, in bytes; 0 for longs and 5-tuples. */
    public int maxBytes() {
        return 0;
    }

    /** h1 of the record's item; a structure derives h2 and every index from it. */
    public abstract long hash(ItemHasher hasher, T record);

    /** Adds {@code weight} to the record's item in a heavy-hitter tracker. */
    public abstract void addTo(HeavyHitters tracker, T record, long weight);

    /**
     * The record's item as a value with {@code equals}: a {@code Long}, a {@link FiveTuple}, a {@code String} or
     * a {@link ByteItem}. Allocates; for reports and tests, not for the per-record path.
     */
    public abstract Object itemOf(T record);

    /**
     * A tracker's item ({@link io.linerate.sketches.frequency.HeavyHitter#item()}) in the form {@link #itemOf}
     * gives: UTF-8 bytes become a {@code String}, bytes a {@link ByteItem}.
     */
    public abstract Object present(Object trackerItem);

    private static int checkMaxBytes(int maxBytes) {
        if (maxBytes < 1 || maxBytes > KeyKind.MAX_BYTES_LIMIT) {
            throw new IllegalArgumentException("maxBytes must be in [1, " + KeyKind.MAX_BYTES_LIMIT + "], got "
                    + maxBytes);
        }
        return maxBytes;
    }

    private static void checkLength(int length, int maxBytes) {
        if (length > maxBytes) {
            throw new IllegalArgumentException("item of " + length + " bytes exceeds maxBytes " + maxBytes);
        }
    }

    private static <V> V nonNull(V item) {
        if (item == null) {
            throw new IllegalArgumentException("item is null");
        }
        return item;
    }

    /** A {@code long} item of a record. */
    @FunctionalInterface
    public interface LongOf<T> extends Serializable {
        /** The record's item. */
        long itemOf(T record);
    }

    /** A 5-tuple item of a record. */
    @FunctionalInterface
    public interface TupleOf<T> extends Serializable {
        /** The record's item; a null item, or an exception thrown here, makes the record malformed. */
        FiveTuple itemOf(T record);
    }

    /** A string item of a record. */
    @FunctionalInterface
    public interface TextOf<T> extends Serializable {
        /** The record's item; a null item, or an exception thrown here, makes the record malformed. */
        CharSequence itemOf(T record);
    }

    /** A byte-string item of a record; the operator does not keep the array. */
    @FunctionalInterface
    public interface BytesOf<T> extends Serializable {
        /** The record's item; a null item, or an exception thrown here, makes the record malformed. */
        byte[] itemOf(T record);
    }

    /** A byte-string item with value equality, as reports carry it. */
    public record ByteItem(byte[] bytes) {
        @Override
        public boolean equals(Object o) {
            return o instanceof ByteItem other && Arrays.equals(bytes, other.bytes);
        }

        @Override
        public int hashCode() {
            return Arrays.hashCode(bytes);
        }

        @Override
        public String toString() {
            StringBuilder hex = new StringBuilder(bytes.length * 2);
            for (byte b : bytes) {
                hex.append(Character.forDigit((b >> 4) & 0xF, 16)).append(Character.forDigit(b & 0xF, 16));
            }
            return hex.toString();
        }
    }

    private static final class Longs<T> extends ItemSelector<T> {
        private static final long serialVersionUID = 1L;
        private final LongOf<T> item;

        Longs(LongOf<T> item) {
            this.item = item;
        }

        @Override
        public String toString() {
            return "longs";
        }

        @Override
        public KeyKind keyKind() {
            return KeyKind.longs();
        }

        @Override
        public long hash(ItemHasher hasher, T record) {
            return hasher.hash(item.itemOf(record));
        }

        @Override
        public void addTo(HeavyHitters tracker, T record, long weight) {
            tracker.update(item.itemOf(record), weight);
        }

        @Override
        public Object itemOf(T record) {
            return item.itemOf(record);
        }

        @Override
        public Object present(Object trackerItem) {
            return trackerItem;
        }
    }

    private static final class Tuples<T> extends ItemSelector<T> {
        private static final long serialVersionUID = 1L;
        private final TupleOf<T> item;

        Tuples(TupleOf<T> item) {
            this.item = item;
        }

        @Override
        public String toString() {
            return "fiveTuples";
        }

        @Override
        public KeyKind keyKind() {
            return KeyKind.fiveTuples();
        }

        @Override
        public long hash(ItemHasher hasher, T record) {
            return hasher.hash(nonNull(item.itemOf(record)));
        }

        @Override
        public void addTo(HeavyHitters tracker, T record, long weight) {
            tracker.update(nonNull(item.itemOf(record)), weight);
        }

        @Override
        public Object itemOf(T record) {
            return nonNull(item.itemOf(record));
        }

        @Override
        public Object present(Object trackerItem) {
            return trackerItem;
        }
    }

    private static final class Texts<T> extends ItemSelector<T> {
        private static final long serialVersionUID = 1L;
        private final TextOf<T> item;
        private final int maxBytes;
        /** UTF-8 scratch; an operator instance uses its selector from one thread. */
        private transient byte[] scratch;

        Texts(TextOf<T> item, int maxBytes) {
            this.item = item;
            this.maxBytes = maxBytes;
        }

        @Override
        public String toString() {
            return "strings(maxBytes " + maxBytes + ")";
        }

        @Override
        public KeyKind keyKind() {
            return KeyKind.bytes(maxBytes);
        }

        @Override
        public int maxBytes() {
            return maxBytes;
        }

        @Override
        public long hash(ItemHasher hasher, T record) {
            return hasher.hash(nonNull(item.itemOf(record)));
        }

        @Override
        public void addTo(HeavyHitters tracker, T record, long weight) {
            CharSequence text = nonNull(item.itemOf(record));
            int length = encode(text);
            if (length >= 0) {
                tracker.update(scratch, 0, length, weight);
            } else {
                checkWellFormed(text); // UTF-8 would turn each lone surrogate into '?', merging distinct items
                byte[] utf8 = text.toString().getBytes(StandardCharsets.UTF_8);
                checkLength(utf8.length, maxBytes);
                tracker.update(utf8, 0, utf8.length, weight);
            }
        }

        private static void checkWellFormed(CharSequence text) {
            for (int i = 0; i < text.length(); i++) {
                char c = text.charAt(i);
                if (Character.isHighSurrogate(c) && i + 1 < text.length()
                        && Character.isLowSurrogate(text.charAt(i + 1))) {
                    i++;
                } else if (Character.isSurrogate(c)) {
                    throw new IllegalArgumentException(String.format(Locale.ROOT,
                            "item is not valid UTF-16: a lone surrogate"
                            + " \\u%04X at index %d", (int) c, i));
                }
            }
        }

        /** ASCII fast path without allocation: the length, or -1 if {@code text} is not all ASCII. */
        private int encode(CharSequence text) {
            int length = text.length();
            checkLength(length, maxBytes); // UTF-8 is never shorter than the char count
            if (scratch == null) {
                scratch = new byte[maxBytes];
            }
            for (int i = 0; i < length; i++) {
                char c = text.charAt(i);
                if (c >= 0x80) {
                    return -1;
                }
                scratch[i] = (byte) c;
            }
            return length;
        }

        @Override
        public Object itemOf(T record) {
            return nonNull(item.itemOf(record)).toString();
        }

        @Override
        public Object present(Object trackerItem) {
            return new String((byte[]) trackerItem, StandardCharsets.UTF_8);
        }
    }

    private static final class Bytes<T> extends ItemSelector<T> {
        private static final long serialVersionUID = 1L;
        private final BytesOf<T> item;
        private final int maxBytes;

        Bytes(BytesOf<T> item, int maxBytes) {
            this.item = item;
            this.maxBytes = maxBytes;
        }

        @Override
        public String toString() {
            return "bytes(maxBytes " + maxBytes + ")";
        }

        @Override
        public KeyKind keyKind() {
            return KeyKind.bytes(maxBytes);
        }

        @Override
        public int maxBytes() {
            return maxBytes;
        }

        @Override
        public long hash(ItemHasher hasher, T record) {
            return hasher.hash(nonNull(item.itemOf(record)));
        }

        @Override
        public void addTo(HeavyHitters tracker, T record, long weight) {
            byte[] bytes = nonNull(item.itemOf(record));
            checkLength(bytes.length, maxBytes);
            tracker.update(bytes, 0, bytes.length, weight);
        }

        @Override
        public Object itemOf(T record) {
            return new ByteItem(nonNull(item.itemOf(record)).clone());
        }

        @Override
        public Object present(Object trackerItem) {
            return new ByteItem(((byte[]) trackerItem).clone());
        }
    }
}
