package io.linerate.flink.flowmeter;

import io.linerate.flink.items.ElementsOf;
import io.linerate.flink.items.TimestampOf;
import io.linerate.flink.items.WeightOf;
import io.linerate.flink.rejects.Rejected;
import io.linerate.flink.state.WriteBackOperator;
import io.linerate.sketches.flowtable.ExportReason;
import io.linerate.sketches.flowtable.FlowExporter;
import io.linerate.sketches.flowtable.FlowKeyFormat;
import io.linerate.sketches.flowtable.FlowTable;
import io.linerate.sketches.flowtable.InsertionScheme;
import io.linerate.sketches.flowtable.OverflowPolicy;
import io.linerate.sketches.flowtable.TableLayout;
import io.linerate.sketches.hash.ItemHasher;
import io.linerate.sketches.image.ImageWriter;
import java.io.Serializable;
import java.time.Duration;
import java.util.Objects;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.java.functions.KeySelector;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.apache.flink.util.OutputTag;

/**
 * The flow meter: NetFlow-style flow records from a stream of packets, metered per scope (observation point,
 * link) in one bounded multilevel-hash flow table ({@link FlowTable}, see docs/flowtable.md) per scope key,
 * held in keyed state. Every packet is counted in exactly one exported {@link MeteredFlow}: records leave on
 * idle timeout, active timeout, eviction (when a new flow finds no room, {@link OverflowPolicy}) and at the end
 * of a bounded input (flushed).
 *
 * <pre>{@code
 * FlowMeter<Packet, String> meter = FlowMeter.<Packet>builder()
 *         .scope(p -> p.link, Types.STRING)
 *         .packets((p, sink) -> sink.ipv4(p.src, p.dst, p.srcPort, p.dstPort, p.protocol))
 *         .bytes(p -> p.length)
 *         .tcpFlags(p -> p.flags)
 *         .capacity(100_000)
 *         .idleTimeout(Duration.ofSeconds(15))
 *         .build();
 * SingleOutputStreamOperator<MeteredFlow<String>> flows = meter.apply(packets);
 * DataStream<Rejected<Packet>> malformed = flows.getSideOutput(meter.malformedTag(packets.getType()));
 * }</pre>
 *
 * <p>Time is event time in milliseconds: the record's Flink timestamp (assign it with a
 * {@code WatermarkStrategy}), or {@link Builder#timestamps} to read it from the record. Timeouts are judged
 * against the scope's "now", the largest packet timestamp it has seen, moved on by a per-scope event-time timer
 * every {@link Builder#tick} while the table holds flows, so (for packets in timestamp order) an idle flow is
 * exported at the latest when the watermark passes the first tick boundary at or after
 * {@code last + idleTimeout}, whether or not other packets follow.
 *
 * <p>Records carrying a batch of packets of one scope are metered by {@link #applyToBatches}: the same
 * per-packet logic, with one state read and at most one state write per batch (docs/operators/flow-meter.md,
 * "Batches").
 */
public final class FlowMeter<T, K> implements Serializable {

    private static final long serialVersionUID = 1L;

    /** Entry longs per slot besides the key: packets, bytes, first, last. */
    private static final int COUNTER_LONGS = 4;
    private static final long MAX_ENTRY_LONGS = Integer.MAX_VALUE - 8;
    private static final int LEVELS = 4;
    /** Default of {@link Builder#stateCacheBytes}: 64 MiB per parallel instance of the operator. */
    public static final long DEFAULT_STATE_CACHE_BYTES = 64L << 20;
    /** Name of the side output of batch records that cannot be read. */
    public static final String MALFORMED_BATCHES = Rejected.BATCH_OUTPUT_NAME;
    /** The elements of a packet record: the record itself (a batch of one). */
    private static final ElementsOf<Object, Object> SINGLE = (record, each) -> each.accept(record);

    final KeySelector<T, K> scope;
    final TypeInformation<K> scopeType;
    final PacketSelector<T> packets;
    final WeightOf<T> bytes;
    final TcpFlagsOf<T> tcpFlags;
    final TimestampOf<T> timestamps;
    final long capacity;
    final InsertionScheme scheme;
    final OverflowPolicy overflow;
    final FlowKeyFormat keyFormat;
    final int stashCapacity;
    final long seed;
    final long idleTimeout;
    final long activeTimeout;
    final long tick;
    final long stateCacheBytes;

    private FlowMeter(Builder<T, K> b, long capacity) {
        this.scope = b.scope;
        this.scopeType = b.scopeType;
        this.packets = b.packets;
        this.bytes = b.bytes;
        this.tcpFlags = b.tcpFlags;
        this.timestamps = b.timestamps;
        this.capacity = capacity;
        this.scheme = b.scheme;
        this.overflow = b.overflow;
        this.keyFormat = b.keyFormat;
        this.stashCapacity = b.stashCapacity;
        this.seed = b.seed;
        this.idleTimeout = b.idleTimeout.toMillis();
        this.activeTimeout = b.activeTimeout.toMillis();
        this.tick = b.tick.toMillis();
        this.stateCacheBytes = b.stateCacheBytes;
    }

    /** A builder; scope, packets, bytes and capacity (or memoryBudget) are required. */
    public static <T> Builder<T, Object> builder() {
        return new Builder<>();
    }

    /**
     * Keys {@code input} by scope and meters it. The result carries the malformed records on the side output
     * {@link #malformedTag}. Give the returned operator a {@code uid} so savepoints map its state back.
     */
    public SingleOutputStreamOperator<MeteredFlow<K>> apply(DataStream<T> input) {
        return input.keyBy(scope, scopeType)
                .transform("flow-meter", outputType(),
                        new WriteBackOperator<>(input.getExecutionEnvironment().clean(function(input.getType()))));
    }

    /**
     * Keys a stream of batch records by {@code batchScope} and meters every packet of every batch, paying Flink's
     * per-record costs (network serialization, key extraction, one state read and one state write, timestamps)
     * once per batch instead of once per packet. Every element of a batch is a packet counted under the batch's
     * scope (the builder's {@code scope} selector is not applied to elements, nor is it checked that they agree).
     * A packet's event time is {@link Builder#timestamps} of the element if set, else the batch record's Flink
     * timestamp; malformed and late are decided per packet, malformed packets go to
     * {@link #malformedTag malformedTag(elementType)}, batches whose {@code elements} throws to
     * {@link #malformedBatchesTag malformedBatchesTag(batches.getType())}. Give the result a {@code uid}.
     *
     * @param batchScope the scope of a batch record (its observation point, link): one flow table per scope
     * @param elements lists the packets of a batch record (may hand over one reused element object)
     * @param elementType type information of the packets (for the malformed-packets side output)
     */
    public <B> SingleOutputStreamOperator<MeteredFlow<K>> applyToBatches(DataStream<B> batches,
                                                                        KeySelector<B, K> batchScope,
                                                                        ElementsOf<B, T> elements,
                                                                        TypeInformation<T> elementType) {
        Objects.requireNonNull(batchScope, "batchScope");
        return batches.keyBy(batchScope, scopeType).transform("flow-meter", outputType(), new WriteBackOperator<>(
                batches.getExecutionEnvironment().clean(batchFunction(batches.getType(), elementType, elements))));
    }

    /** The keyed process function {@link #apply} runs (for tests and custom wiring after a keyBy on scope). */
    public FlowMeterFunction<T, T, K> function(TypeInformation<T> inputType) {
        return new FlowMeterFunction<>(this, single(), malformedTag(inputType), null);
    }

    /**
     * The keyed process function {@link #applyToBatches} runs, for batch records of type {@code B} keyed by
     * their scope (for tests and custom wiring after a keyBy on the batch's scope).
     */
    public <B> FlowMeterFunction<B, T, K> batchFunction(TypeInformation<B> batchType, TypeInformation<T> elementType,
                                                        ElementsOf<B, T> elements) {
        Objects.requireNonNull(elements, "elements");
        return new FlowMeterFunction<>(this, elements, malformedTag(elementType), malformedBatchesTag(batchType));
    }

    /** A packet record as a batch of one. */
    @SuppressWarnings("unchecked")
    private static <T> ElementsOf<T, T> single() {
        return (ElementsOf<T, T>) SINGLE;
    }

    /** Type information of the output records. */
    public TypeInformation<MeteredFlow<K>> outputType() {
        return MeteredFlow.typeInfo(scopeType);
    }

    /** The malformed-records side output ({@link Rejected#tag}): packets, also those of a batch. */
    public OutputTag<Rejected<T>> malformedTag(TypeInformation<T> inputType) {
        return Rejected.tag(inputType);
    }

    /**
     * The side output of {@link #applyToBatches} for batch records whose {@link ElementsOf} threw (a batch that
     * cannot be read): the batch and the reason, counted in {@code malformedBatches}. Packets it handed over
     * before throwing are metered.
     */
    public <B> OutputTag<Rejected<B>> malformedBatchesTag(TypeInformation<B> batchType) {
        return Rejected.batchTag(batchType);
    }

    /** The flow count each scope's table is sized for. */
    public long capacity() {
        return capacity;
    }

    /** What a full table does with a new flow (a restored table takes this one too). */
    public OverflowPolicy overflow() {
        return overflow;
    }

    /** A flow idle this long (event time) is exported. */
    public Duration idleTimeout() {
        return Duration.ofMillis(idleTimeout);
    }

    /** A flow lasting this long (event time) is exported and restarted. */
    public Duration activeTimeout() {
        return Duration.ofMillis(activeTimeout);
    }

    /** Overflow stash entries of each scope's table (part of the table's shape). */
    public int stashCapacity() {
        return stashCapacity;
    }

    /** Bytes of one scope's table: what a state cache entry holds ({@link Builder#stateCacheBytes}). */
    public long tableBytes() {
        return tableBytes(capacity, scheme, keyFormat, stashCapacity);
    }

    /**
     * Scopes whose tables a subtask keeps live between checkpoints on a state backend that stores values serialized:
     * {@link Builder#stateCacheBytes} over {@link #tableBytes()}, rounded down (0: none).
     */
    public int cachedScopes() {
        return (int) Math.min(Integer.MAX_VALUE, stateCacheBytes / tableBytes());
    }

    /** The shape of this meter's tables, without building one. */
    FlowTable.Plan tablePlan() {
        return tables().plan();
    }

    /** A new, empty table of this meter's configuration. */
    FlowTable newTable(FlowExporter exporter) {
        return tables().exporter(exporter).build();
    }

    private FlowTable.Builder tables() {
        return tableBuilder(capacity, scheme, overflow, keyFormat, stashCapacity, seed, idleTimeout, activeTimeout);
    }

    /**
     * Gives a table read from state this meter's timeouts and overflow policy, where a savepoint of a differently
     * configured job left others: they are behaviour, not shape (restoring another capacity or seed fails instead).
     */
    void adopt(FlowTable table) {
        if (table.idleTimeout() != idleTimeout || table.activeTimeout() != activeTimeout) {
            table.setTimeouts(idleTimeout, activeTimeout);
        }
        if (table.overflowPolicy() != overflow) {
            table.setOverflowPolicy(overflow);
        }
    }

    private static FlowTable.Builder tableBuilder(long capacity, InsertionScheme scheme, OverflowPolicy overflow,
                                                  FlowKeyFormat keyFormat, int stash, long seed, long idle,
                                                  long active) {
        return FlowTable.builder().capacity(capacity).scheme(scheme).overflowPolicy(overflow).keyFormat(keyFormat)
                .stashCapacity(stash).seed(seed).idleTimeout(idle).activeTimeout(active);
    }

    /**
     * Bytes of one table's arrays for {@code flows} capacity: (slots + stash + 1) entries of
     * (key + 4 counters) longs, plus one state byte per slot, the stash's copies of its flows' hashes and last
     * timestamps (two longs per stash slot), the layout's int arrays and the export counts.
     */
    static long tableBytes(long flows, InsertionScheme scheme, FlowKeyFormat format, int stash) {
        long longs = entryLongs(flows, scheme, format, stash);
        if (longs > MAX_ENTRY_LONGS) {
            return Long.MAX_VALUE; // no such table
        }
        long slots = longs / (format.keyLongs() + COUNTER_LONGS) - 1;
        // the layout's ints: the bucket count of each level (the table's copy and the layout's) and the first slot of
        // each level plus the end; and the table's count of exports per reason
        return longs * Long.BYTES + slots + 2L * stash * Long.BYTES + (long) Integer.BYTES * (3 * LEVELS + 1)
                + (long) ExportReason.values().length * Long.BYTES;
    }

    /** Longs of the entry array: (sub-table slots + stash + 1 scratch) × (key + counters); MAX_VALUE if too big. */
    private static long entryLongs(long flows, InsertionScheme scheme, FlowKeyFormat format, int stash) {
        TableLayout layout;
        try {
            layout = TableLayout.forItems(flows, scheme, scheme.defaultAlphas(LEVELS), stash);
        } catch (IllegalArgumentException tooManySlots) {
            return Long.MAX_VALUE;
        }
        return ((long) layout.tableSlots() + stash + 1) * (format.keyLongs() + COUNTER_LONGS);
    }

    /** The TCP flags of a packet record (0 – 65535; 0 for non-TCP). */
    @FunctionalInterface
    public interface TcpFlagsOf<T> extends Serializable {
        /** The packet's TCP flags. */
        int tcpFlagsOf(T record);
    }

    /** Settings of a {@link FlowMeter}; ranges are checked when set and completeness by {@link #build}. */
    public static final class Builder<T, K> {
        private KeySelector<T, K> scope;
        private TypeInformation<K> scopeType;
        private PacketSelector<T> packets;
        private WeightOf<T> bytes;
        private TcpFlagsOf<T> tcpFlags;
        private TimestampOf<T> timestamps;
        private long capacity;
        private long memoryBudget;
        private InsertionScheme scheme = InsertionScheme.SECOND_CHANCE;
        private OverflowPolicy overflow = OverflowPolicy.EVICT_LEAST_RECENT;
        private FlowKeyFormat keyFormat = FlowKeyFormat.IPV4_AND_IPV6;
        private int stashCapacity = TableLayout.DEFAULT_STASH;
        private long seed = ItemHasher.DEFAULT_SEED;
        private Duration idleTimeout = Duration.ofSeconds(15);
        private Duration activeTimeout = Duration.ofMinutes(30);
        private Duration tick = Duration.ofSeconds(1);
        private long stateCacheBytes = DEFAULT_STATE_CACHE_BYTES;

        Builder() {
        }

        /** The scope key (observation point, link, tenant): one flow table per scope. Required. */
        @SuppressWarnings("unchecked")
        public <K2> Builder<T, K2> scope(KeySelector<T, K2> scope, TypeInformation<K2> scopeType) {
            Builder<T, K2> self = (Builder<T, K2>) this;
            self.scope = Objects.requireNonNull(scope, "scope");
            self.scopeType = Objects.requireNonNull(scopeType, "scopeType");
            return self;
        }

        /** The packet's 5-tuple, handed over without allocation ({@link PacketSelector}). Required. */
        public Builder<T, K> packets(PacketSelector<T> packets) {
            this.packets = Objects.requireNonNull(packets, "packets");
            return this;
        }

        /** The packet's length in bytes (≥ 0; a negative length is malformed). Required. */
        public Builder<T, K> bytes(WeightOf<T> bytes) {
            this.bytes = Objects.requireNonNull(bytes, "bytes");
            return this;
        }

        /** The packet's TCP flags (0 – 65535); default: none (0 for every packet). */
        public Builder<T, K> tcpFlags(TcpFlagsOf<T> tcpFlags) {
            this.tcpFlags = Objects.requireNonNull(tcpFlags, "tcpFlags");
            return this;
        }

        /**
         * Reads the event timestamp (ms) from the record instead of the record's Flink timestamp; it should agree
         * with the timestamps the stream's watermarks are generated from. Default: the Flink timestamp (a record
         * without one is malformed).
         */
        public Builder<T, K> timestamps(TimestampOf<T> timestamps) {
            this.timestamps = Objects.requireNonNull(timestamps, "timestamps");
            return this;
        }

        /** Flows n each scope's table is sized for (thesis Table 5.1: sub-table i gets ⌊α_i·n⌋ buckets). */
        public Builder<T, K> capacity(long flows) {
            if (flows < 1 || flows > TableLayout.MAX_SLOTS) {
                throw new IllegalArgumentException("capacity must be in [1, " + TableLayout.MAX_SLOTS + "] flows, got "
                        + flows);
            }
            this.capacity = flows;
            return this;
        }

        /**
         * Sizes each scope's table to the largest capacity whose arrays fit in {@code bytes} (instead of
         * {@link #capacity}), and whose image once full fits one checkpointed value (2<sup>31</sup> − 9 bytes,
         * about 22.9 million flows with the defaults, 34 million with IPV4_ONLY); resolved by {@link #build} with the scheme, key format and stash then set.
         */
        public Builder<T, K> memoryBudget(long bytes) {
            if (bytes <= 0) {
                throw new IllegalArgumentException("memoryBudget must be > 0 bytes, got " + bytes);
            }
            this.memoryBudget = bytes;
            return this;
        }

        /** Idle (inactive) timeout; default 15 s; at least 1 ms. */
        public Builder<T, K> idleTimeout(Duration timeout) {
            this.idleTimeout = positiveMillis("idleTimeout", timeout);
            return this;
        }

        /** Active timeout: a flow lasting this long is exported and restarted; default 30 min; at least 1 ms. */
        public Builder<T, K> activeTimeout(Duration timeout) {
            this.activeTimeout = positiveMillis("activeTimeout", timeout);
            return this;
        }

        /** Period of the per-scope expiry timer (event time); default 1 s; at least 1 ms. */
        public Builder<T, K> tick(Duration tick) {
            this.tick = positiveMillis("tick", tick);
            return this;
        }

        /** Insertion scheme of the multilevel table; default {@link InsertionScheme#SECOND_CHANCE}. */
        public Builder<T, K> scheme(InsertionScheme scheme) {
            this.scheme = Objects.requireNonNull(scheme, "scheme");
            return this;
        }

        /** What happens when a new flow finds no room; default {@link OverflowPolicy#EVICT_LEAST_RECENT}. */
        public Builder<T, K> overflow(OverflowPolicy overflow) {
            this.overflow = Objects.requireNonNull(overflow, "overflow");
            return this;
        }

        /** Key width; default IPv4 and IPv6 (72 bytes per slot); {@code IPV4_ONLY} takes 48. */
        public Builder<T, K> keyFormat(FlowKeyFormat keyFormat) {
            this.keyFormat = Objects.requireNonNull(keyFormat, "keyFormat");
            return this;
        }

        /** Overflow stash entries, searched on every miss; default 64. */
        public Builder<T, K> stashCapacity(int entries) {
            if (entries < 0 || entries > TableLayout.MAX_STASH) {
                throw new IllegalArgumentException("stashCapacity must be in [0, " + TableLayout.MAX_STASH + "], got "
                        + entries);
            }
            this.stashCapacity = entries;
            return this;
        }

        /**
         * Heap each parallel instance of the operator may spend keeping the tables of its most recently used scopes
         * live between checkpoints when the state backend stores values serialized (RocksDB): there a record otherwise
         * costs a deserialize and a serialize of its scope's whole table. Tables are written back when the cache needs
         * their place and before every checkpoint or savepoint; the cache holds {@code bytes / tableBytes()} tables
         * (none if one table is larger). Default {@value #DEFAULT_STATE_CACHE_BYTES} bytes; 0 turns it off. Backends
         * that keep values on the heap (its state is the live table; also under the changelog backend) and batch
         * execution ignore it.
         */
        public Builder<T, K> stateCacheBytes(long bytes) {
            if (bytes < 0) {
                throw new IllegalArgumentException("stateCacheBytes must be >= 0, got " + bytes);
            }
            this.stateCacheBytes = bytes;
            return this;
        }

        /** Hash seed of every scope's table (part of the state); choose it at random where keys may be hostile. */
        public Builder<T, K> seed(long seed) {
            this.seed = seed;
            return this;
        }

        private static Duration positiveMillis(String name, Duration d) {
            Objects.requireNonNull(d, name);
            long ms;
            try {
                ms = d.toMillis();
            } catch (ArithmeticException e) { // e.g. ChronoUnit.FOREVER: say which parameter, not "long overflow"
                throw new IllegalArgumentException(name + " must be at most " + Long.MAX_VALUE + " ms, got " + d);
            }
            if (d.isNegative() || ms < 1) {
                throw new IllegalArgumentException(name + " must be >= 1 ms, got " + d);
            }
            return d;
        }

        /**
         * Checks that every required setting is given and the table fits the limits.
         *
         * @throws IllegalArgumentException naming the missing or out-of-range parameter
         */
        public FlowMeter<T, K> build() {
            require(scope != null, "scope must be set (scope(keySelector, keyType))");
            require(packets != null, "packets must be set (packets(selector) handing over the 5-tuple)");
            require(bytes != null, "bytes must be set (bytes(record -> length))");
            require(capacity == 0 || memoryBudget == 0, "set either capacity(flows) or memoryBudget(bytes), not both:"
                    + " the budget chooses the capacity (got capacity " + capacity + " and memoryBudget " + memoryBudget
                    + ")");
            require(capacity != 0 || memoryBudget != 0, "capacity (flows) or memoryBudget (bytes) must be set");
            long flows = capacity != 0 ? capacity : capacityFor(memoryBudget);
            try {
                long longs = entryLongs(flows, scheme, keyFormat, stashCapacity);
                require(longs <= MAX_ENTRY_LONGS, "capacity " + flows + " is too large for one scope's table: "
                        + (longs == Long.MAX_VALUE ? "more than " + TableLayout.MAX_SLOTS + " slots" : longs
                        + " longs of entries") + " with scheme " + scheme + " and keyFormat " + keyFormat
                        + ", limit is " + MAX_ENTRY_LONGS + " longs");
                // the table's own setters check the rest with the same names, and its plan that a full table's
                // image fits a checkpoint (nothing is allocated here)
                tableBuilder(flows, scheme, overflow, keyFormat, stashCapacity, seed, idleTimeout.toMillis(),
                        activeTimeout.toMillis()).plan();
            } catch (IllegalArgumentException tooLarge) {
                if (capacity == 0 || !tooLarge.getMessage().startsWith("capacity " + flows + " is too large")) {
                    throw tooLarge;
                }
                // say what fits: the limits depend on the scheme, key format and stash, so a bare limit in slots,
                // longs or bytes leaves the user to work the capacity out
                throw new IllegalArgumentException(tooLarge.getMessage() + "; the largest capacity with scheme "
                        + scheme + ", keyFormat " + keyFormat + " and stashCapacity " + stashCapacity + " is "
                        + capacityFor(Long.MAX_VALUE) + " flows", tooLarge);
            }
            return new FlowMeter<>(this, flows);
        }

        private long capacityFor(long budget) {
            long low = 1;
            long high = TableLayout.MAX_SLOTS;
            require(tableBytes(low, scheme, keyFormat, stashCapacity) <= budget, "memoryBudget of " + budget
                    + " bytes is below one flow's table (" + tableBytes(low, scheme, keyFormat, stashCapacity)
                    + " bytes with stash " + stashCapacity + ")");
            while (low < high) { // table bytes grow with capacity: the largest capacity within the budget
                long mid = (low + high + 1) >>> 1;
                long bytes = tableBytes(mid, scheme, keyFormat, stashCapacity);
                if (bytes != Long.MAX_VALUE && bytes <= budget && imageFits(mid)) {
                    low = mid;
                } else {
                    high = mid - 1;
                }
            }
            return low;
        }

        /** Whether a full table of {@code flows} capacity has an image that one checkpointed value can hold. */
        private boolean imageFits(long flows) {
            return tableBuilder(flows, scheme, overflow, keyFormat, stashCapacity, seed, 1, 1).fullImageBytes()
                    <= ImageWriter.MAX_IMAGE_BYTES;
        }

        private static void require(boolean ok, String message) {
            if (!ok) {
                throw new IllegalArgumentException(message);
            }
        }
    }
}
