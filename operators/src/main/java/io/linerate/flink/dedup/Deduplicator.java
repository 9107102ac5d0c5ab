package io.linerate.flink.dedup;

import io.linerate.flink.items.ElementsOf;
import io.linerate.flink.items.ItemSelector;
import io.linerate.flink.items.TimestampOf;
import io.linerate.flink.rejects.Rejected;
import io.linerate.flink.state.WriteBackOperator;
import io.linerate.sketches.hash.ItemHasher;

import java.io.Serializable;
import java.time.Duration;
import java.util.Objects;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.java.functions.KeySelector;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.KeyedStream;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.apache.flink.util.OutputTag;

/**
 * Deduplication per scope key over a time horizon H with rotating Bloom filters: first occurrences pass to the
 * main output, probable duplicates go to the {@link #duplicatesTag duplicates} side output (and are counted),
 * never dropped.
 *
 * <p>Each key keeps g generations of span S = ⌈H / (g − 1)⌉ ({@link DedupSizing}). A record is first tested
 * against the current generation: if that probably holds its item, it is a duplicate and nothing is written;
 * otherwise it is tested against the older generations and inserted into the current one (a repeat found only in
 * an older generation is refreshed). At every S a timer drops the oldest generation. So a generation receives at
 * most one insertion per distinct item during its span, whatever the number of records.
 *
 * <p>Records or batches: {@link #apply} takes a stream of records; {@link #applyToBatches} a stream of batch
 * records, each carrying several elements of one scope ({@link ElementsOf}), at one state read and at most one
 * state write per batch. Both run the same per-element logic; everything below holds per element.
 *
 * <p><b>Guarantees.</b> Let a key's clock be the largest time it has seen: in processing time the processing time;
 * in event time the larger of the watermark and the record timestamps of that key.
 * <ol>
 *   <li><i>No false negatives inside the horizon</i> (deterministic, not a probability). A record is flagged
 *       whenever an earlier record of the same key and item had a timestamp at least clock − H. Invariant: after
 *       an occurrence is processed at clock T, generation ⌊T/S⌋ answers "present" for its item — either the item
 *       was inserted, or the test of that generation already answered "present" (a true or a false positive:
 *       the bits that answer are set and stay set). A filter's bits are only cleared with its whole generation,
 *       which happens when the clock reaches (⌊T/S⌋ + g)·S &gt; T + (g − 1)·S ≥ T + H, and Bloom filters have
 *       no false negatives. So skipping the write of a repeat (even on a false positive) never shortens what is
 *       remembered. In particular, with timestamps in order per key (always, in processing time), every repeat
 *       within H of the previous occurrence is flagged. Repeats up to g·S = H·g/(g − 1) apart may be flagged
 *       too.</li>
 *   <li><i>Bounded false positives.</i> While a key receives at most n = ⌈rate·S⌉ distinct items in every span S
 *       (the rate has to hold at the span's own scale: at most {@code expectedRate} distinct items per second
 *       bounds a span that is not a whole number of seconds only by the seconds it overlaps, so with S below a
 *       second a second's items arriving within one span overload its generation; repeats do not count, since a
 *       generation takes at most one insertion per distinct item, and an item goes into the generation of its own
 *       timestamp, so out-of-order records load their own span's), a record whose item is new is flagged with
 *       probability at most p: each of the ≤ g generations it is tested against holds ≤ n items and is sized for false-positive
 *       probability p<sub>g</sub> = 1 − (1 − p)<sup>1/g</sup>, so P(flagged) ≤ 1 − (1 − p<sub>g</sub>)<sup>g</sup>
 *       = p.</li>
 * </ol>
 * Above the rate the false-positive probability grows (never the false negatives): the {@code estimatedFpp}
 * gauge reports it from the filters' fill and {@code overCapacityGenerations} counts generations that took
 * more than n distinct items (also after they closed, from out-of-order or late records, and the generation still
 * current when the input ends, judged then: in processing time no rotation closes it).
 *
 * <p>Event time: a record's time is {@link Builder#timestamps} of it if set, else its Flink record timestamp (for a
 * batch element: the batch record's). A record with a time more than H behind its key's clock is counted in
 * {@code lateRecords} and still deduplicated against what the key remembers (guarantee 1 covers the occurrences
 * at least clock − H); a record without a time (or whose timestamp function throws) is malformed.
 */
public final class Deduplicator<T, K> implements Serializable {

    private static final long serialVersionUID = 1L;

    /** Name of the side output carrying probable duplicates. */
    public static final String DUPLICATES = "duplicates";

    private final KeySelector<T, K> scope;
    private final TypeInformation<K> scopeType;
    private final ItemSelector<T> item;
    private final boolean eventTime;
    private final TimestampOf<T> timestamps;
    private final DedupSizing sizing;
    private final long stateCacheBytes;

    private Deduplicator(Builder<T, K> b, DedupSizing sizing) {
        this.scope = b.scope;
        this.scopeType = b.scopeType;
        this.item = b.item;
        this.eventTime = b.eventTime;
        this.timestamps = b.timestamps;
        this.sizing = sizing;
        this.stateCacheBytes = b.stateCacheBytes;
    }

    /** A builder; scope, item, horizon, the time (event or processing), expectedRate and fpp are required. */
    public static <T, K> Builder<T, K> builder() {
        return new Builder<>();
    }

    /** Default of {@link Builder#stateCacheBytes}: 64 MiB per parallel instance of the operator. */
    public static final long DEFAULT_STATE_CACHE_BYTES = 64L << 20;

    /** The side output of probable duplicates of an input of type {@code inputType}. */
    public static <T> OutputTag<T> duplicatesTag(TypeInformation<T> inputType) {
        return new OutputTag<>(DUPLICATES, Objects.requireNonNull(inputType, "inputType"));
    }

    /** Keys {@code input} by the scope and deduplicates it (each record is one element: a batch of one). */
    public DedupStreams<T> apply(DataStream<T> input) {
        TypeInformation<T> type = input.getType();
        KeyedStream<T, K> keyed = scopeType == null ? input.keyBy(scope) : input.keyBy(scope, scopeType);
        SingleOutputStreamOperator<T> firsts = keyed.transform("dedup", type,
                new WriteBackOperator<>(input.getExecutionEnvironment().clean(function(type))));
        return new DedupStreams<>(firsts, firsts.getSideOutput(duplicatesTag(type)),
                firsts.getSideOutput(Rejected.tag(type)));
    }

    /**
     * Keys {@code batches} by {@code batchScope} and deduplicates their elements, each under its batch's scope
     * (every element of a batch is taken to belong to that scope; this is not checked per element). The item
     * selector, {@link Builder#timestamps timestamps} and {@link #scope()} of this deduplicator are over the
     * element type T; {@link #scope()} is not used here.
     *
     * <p>Per batch one state read and at most one state write; per element the same logic as {@link #apply}.
     * The outputs are elements: first occurrences on the main output, probable duplicates on
     * {@link #duplicatesTag duplicatesTag(elementType)}, malformed elements on {@code Rejected.tag(elementType)}.
     * A batch record whose {@code elements} throws goes to {@code Rejected.batchTag(batches.getType())} of the
     * first-occurrence stream, counted in {@code malformedBatches}; the elements it handed over before failing are
     * processed as usual.
     * An element emitted downstream is copied or serialized by Flink, so a flyweight element
     * ({@link ElementsOf}) is safe, except under object reuse, where a chained downstream operator gets the object
     * itself: hand a new element per call there if anything downstream keeps one. Event time per element: {@link Builder#timestamps} if set, else the batch
     * record's Flink timestamp for all its elements.
     */
    public <B> DedupStreams<T> applyToBatches(DataStream<B> batches, KeySelector<B, K> batchScope,
                                              ElementsOf<B, T> elements, TypeInformation<T> elementType) {
        Objects.requireNonNull(batchScope, "batchScope");
        KeyedStream<B, K> keyed = scopeType == null ? batches.keyBy(batchScope) : batches.keyBy(batchScope, scopeType);
        SingleOutputStreamOperator<T> firsts = keyed.transform("dedup", elementType, new WriteBackOperator<>(
                batches.getExecutionEnvironment().clean(batchFunction(batches.getType(), elementType, elements))));
        return new DedupStreams<>(firsts, firsts.getSideOutput(duplicatesTag(elementType)),
                firsts.getSideOutput(Rejected.tag(elementType)));
    }

    /** The keyed function (for a harness or a custom topology); its input must be keyed by {@link #scope()}. */
    public DedupFunction<K, T, T> function(TypeInformation<T> inputType) {
        return new DedupFunction<>(item, sizing, cachedScopes(), eventTime, timestamps, DedupFunction.single(), null,
                Objects.requireNonNull(inputType, "inputType"));
    }

    /**
     * The keyed function over batches (for a harness or a custom topology); its input must be keyed by the
     * batches' scope. Outputs as in {@link #applyToBatches}.
     */
    public <B> DedupFunction<K, B, T> batchFunction(TypeInformation<B> batchType, TypeInformation<T> elementType,
                                                    ElementsOf<B, T> elements) {
        return new DedupFunction<>(item, sizing, cachedScopes(), eventTime, timestamps, elements,
                Objects.requireNonNull(batchType, "batchType"), Objects.requireNonNull(elementType, "elementType"));
    }

    /** The scope (Flink key) selector: a stream given to {@link #function} must be keyed by it. */
    public KeySelector<T, K> scope() {
        return scope;
    }

    /** Whether the horizon runs in event time ({@code eventTime()}) rather than processing time. */
    public boolean isEventTime() {
        return eventTime;
    }

    /** The derived sizes: span, items and false-positive probability per generation, filter size, bytes per key. */
    public DedupSizing sizing() {
        return sizing;
    }

    /**
     * Scope keys whose rings a subtask keeps live between checkpoints on a state backend that stores values
     * serialized: {@link Builder#stateCacheBytes} over a full ring's heap ({@link DedupSizing#stateBytesPerKey()}
     * plus the ring's and its filters' object overhead: 192 bytes, 16 per generation and 720 per filter), rounded down.
     */
    public int cachedScopes() {
        return (int) Math.min(Integer.MAX_VALUE, stateCacheBytes / ringHeapBytes(sizing));
    }

    /** Estimated heap of a ring with every generation allocated: what the cache budgets per scope key. */
    static long ringHeapBytes(DedupSizing sizing) {
        return sizing.stateBytesPerKey() + GenerationRing.heapOverhead(sizing.generations(),
                sizing.generations());
    }

    /**
     * Configures a {@link Deduplicator}; {@link #build()} checks everything and fails naming the parameter.
     * Required: {@code scope}, {@code item}, {@code horizon}, {@code eventTime()} or {@code processingTime()},
     * {@code expectedRate}, {@code fpp}.
     */
    public static final class Builder<T, K> {
        /** Default number of generations: each covers H/3, and retention is at most 4H/3. */
        public static final int DEFAULT_GENERATIONS = 4;

        private KeySelector<T, K> scope;
        private TypeInformation<K> scopeType;
        private ItemSelector<T> item;
        private Duration horizon;
        private Boolean eventTime;
        private boolean eventTimeChosen; // each was called: both is a conflict build() names
        private boolean processingTimeChosen;
        private TimestampOf<T> timestamps;
        private boolean expectedRateSet;
        private double expectedRate;
        private boolean fppSet;
        private double fpp;
        private int generations = DEFAULT_GENERATIONS;
        private long seed = ItemHasher.DEFAULT_SEED;
        private Long memoryBudget;
        private long stateCacheBytes = DEFAULT_STATE_CACHE_BYTES;

        private Builder() {
        }

        /** The Flink key: what a duplicate is relative to (observation point, link, tenant). */
        public Builder<T, K> scope(KeySelector<T, K> scope) {
            this.scope = scope;
            return this;
        }

        /** The scope with its type given (for key selectors whose type Flink cannot extract). */
        public Builder<T, K> scope(KeySelector<T, K> scope, TypeInformation<K> scopeType) {
            this.scope = scope;
            this.scopeType = scopeType;
            return this;
        }

        /** What part of a record identifies it. */
        public Builder<T, K> item(ItemSelector<T> item) {
            this.item = item;
            return this;
        }

        /** H: how long an occurrence is remembered at least (&gt; 0, at least {@code generations − 1} ms). */
        public Builder<T, K> horizon(Duration horizon) {
            this.horizon = horizon;
            return this;
        }

        /**
         * Time is the record timestamps and the watermark. Exclusive with {@link #processingTime()}:
         * {@link #build()} fails naming both if both are called.
         */
        public Builder<T, K> eventTime() {
            this.eventTime = true;
            this.eventTimeChosen = true;
            return this;
        }

        /**
         * Event time of each record or batch element (epoch ms), instead of the Flink record timestamp; needed
         * when the elements of one batch record have their own times. Only with {@link #eventTime()}. An element
         * whose timestamp function throws is malformed ({@code timestamp: <message>}).
         */
        public Builder<T, K> timestamps(TimestampOf<T> timestamps) {
            this.timestamps = timestamps;
            return this;
        }

        /**
         * Time is the operator's processing time. Exclusive with {@link #eventTime()}: {@link #build()} fails naming
         * both if both are called.
         */
        public Builder<T, K> processingTime() {
            this.eventTime = false;
            this.processingTimeChosen = true;
            return this;
        }

        /**
         * Distinct items per second per key the false-positive target is met for (&gt; 0): a generation of span S
         * is sized for n = ⌈rate·S⌉ distinct items, so the rate must hold over every span S, not only per second
         * (with S below a second, a burst of a second's items within one span overloads its generation). Repeats do not count (a generation takes at most one insertion
         * per distinct item), so this is the number of flows / event ids per second, not the record rate.
         */
        public Builder<T, K> expectedRate(double itemsPerSecond) {
            this.expectedRate = itemsPerSecond;
            this.expectedRateSet = true;
            return this;
        }

        /** p: probability that a record with a new item is flagged, in (0, 1). */
        public Builder<T, K> fpp(double p) {
            this.fpp = p;
            this.fppSet = true;
            return this;
        }

        /** g: generations per key, in [2, 64] (default {@value #DEFAULT_GENERATIONS}). */
        public Builder<T, K> generations(int g) {
            this.generations = g;
            return this;
        }

        /**
         * The hash seed (default {@link ItemHasher#DEFAULT_SEED}, fixed and public, so runs are reproducible).
         * Against adversarial inputs that aim items at few filter blocks, set a secret seed. Kept in the state;
         * changing it makes a restore incompatible.
         */
        public Builder<T, K> seed(long seed) {
            this.seed = seed;
            return this;
        }

        /**
         * Heap each parallel instance of the operator may spend keeping the rings of its most recently used scope keys
         * live between checkpoints when the state backend stores values serialized (RocksDB), where a batch otherwise
         * costs a deserialize and a serialize of its key's whole ring: rings are written back when the cache needs
         * their place and whenever the state is snapshotted ({@link io.linerate.flink.state.WriteBackOperator}). Holds
         * {@code bytes / (stateBytesPerKey + object overhead)} rings ({@link Deduplicator#cachedScopes()}: the
         * overhead is about 0.2 KB per ring and 0.7 KB per filter, which for small rings is most of it), each
         * weighed by its heap, so more partly allocated rings fit; default {@value #DEFAULT_STATE_CACHE_BYTES} bytes, 0 turns it off;
         * backends that keep values on the heap (also under the changelog backend) and batch execution ignore it.
         */
        public Builder<T, K> stateCacheBytes(long bytes) {
            require(bytes >= 0, "stateCacheBytes must be >= 0, got " + bytes);
            this.stateCacheBytes = bytes;
            return this;
        }

        /** Optional upper bound on a key's state in bytes; {@link #build()} fails if the sizing needs more. */
        public Builder<T, K> memoryBudget(long bytes) {
            this.memoryBudget = bytes;
            return this;
        }

        /** Checks the configuration and derives the sizes. */
        public Deduplicator<T, K> build() {
            require(scope != null, "scope must be set");
            require(item != null, "item must be set");
            require(eventTime != null, "time must be chosen: call eventTime() or processingTime()");
            require(!(eventTimeChosen && processingTimeChosen),
                    "set either eventTime() or processingTime(), not both");
            require(timestamps == null || eventTime, "timestamps(..) needs eventTime(), got processingTime()");
            require(horizon != null, "horizon must be set");
            require(!horizon.isNegative() && !horizon.isZero(),
                    "horizon must be > 0, got " + horizon);
            require(generations >= GenerationRingSerializer.MIN_GENERATIONS
                            && generations <= GenerationRingSerializer.MAX_GENERATIONS,
                    "generations must be in [" + GenerationRingSerializer.MIN_GENERATIONS + ", "
                            + GenerationRingSerializer.MAX_GENERATIONS + "], got " + generations);
            long millis;
            try {
                millis = horizon.toMillis();
            } catch (ArithmeticException e) {
                throw new IllegalArgumentException("horizon must be at most " + Long.MAX_VALUE + " ms, got " + horizon);
            }
            require(millis >= generations - 1, "horizon must be at least generations - 1 = " + (generations - 1)
                    + " ms (one millisecond per generation span), got " + horizon);
            require(expectedRateSet, "expectedRate must be set: expectedRate(distinct items per second per key)");
            require(fppSet, "fpp must be set: fpp(p), p in (0, 1)");
            require(expectedRate > 0 && Double.isFinite(expectedRate),
                    "expectedRate must be > 0 items per second and finite, got " + expectedRate);
            require(fpp > 0 && fpp < 1, "fpp must be in (0, 1), got " + fpp);
            require(memoryBudget == null || memoryBudget > 0, "memoryBudget must be > 0 bytes, got " + memoryBudget);
            return new Deduplicator<>(this, DedupSizing.derive(horizon, generations, expectedRate, fpp, seed,
                    memoryBudget == null ? 0 : memoryBudget));
        }

        private static void require(boolean ok, String message) {
            if (!ok) {
                throw new IllegalArgumentException(message);
            }
        }
    }
}
