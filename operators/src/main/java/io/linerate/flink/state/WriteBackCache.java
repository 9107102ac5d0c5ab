package io.linerate.flink.state;

import java.io.IOException;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.ToLongFunction;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.metrics.Gauge;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.runtime.state.KeyedStateBackend;
import org.apache.flink.runtime.state.TestableKeyedStateBackend;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A key's structure kept live on the heap between checkpoints, for state backends that store values serialized
 * (RocksDB): read from state once, updated in place while its key stays here, and written back when the cache
 * needs its place and before every snapshot of the operator's state ({@link WriteBackOperator}, or an operator that
 * calls {@link #flush()} from its own {@code snapshotState}, as the heavy-hitter operator does). On such a backend
 * a plain {@code value()} deserializes the whole structure and {@code update()} serializes it again, per record.
 *
 * <p>Holds at most {@code capacity} keys, or ({@link #weighed}) structures of at most a budget of bytes in all; the
 * least recently used one is written back (if changed) and dropped when another key needs its place. Pass-through,
 * every call going to the state, when the capacity is 0, when the
 * backend does not store values serialized ({@link #storesSerialized}: the heap backend's {@code value()} already
 * returns the live structure), or when there is no {@link KeyContext} (a function not run under a
 * {@link WriteBackOperator}: plain {@code process(..)} wiring has no hook before the snapshot, so nothing may wait
 * in a cache there). Keys are matched by {@code equals}/{@code hashCode}, which must agree with the key's serialized
 * form (as Flink requires of keys anyway).
 *
 * <p>A structure changed in place must be handed to {@link #update} before the cache is used for another key (a
 * {@link #value()} or {@link #update} of another key may write back and drop it, and a structure not marked changed
 * is dropped without a write). Exactly once: everything changed is in the state before the operator's snapshot is
 * taken (savepoints included); after a failure the cache is gone and the state is the checkpoint's. Not
 * thread-safe (the task's thread only).
 *
 * @param <K> the operator's key
 * @param <S> the structure held per key
 */
public final class WriteBackCache<K, S> {

    private static final Logger LOG = LoggerFactory.getLogger(WriteBackCache.class);

    private final ValueState<S> state;
    private final KeyContext<K> keys; // null: pass-through
    private final long capacity; // keys, or bytes when weighed
    private final ToLongFunction<? super S> weigher; // null: every structure weighs 1
    private long held; // sum of the held structures' weights (keys when not weighed)
    private volatile long heldBytes; // held, for the gauge
    private final LinkedHashMap<K, Entry<S>> entries = new LinkedHashMap<>(16, 0.75f, true); // access order
    // read by metric reporters on other threads: volatile, written only by the task's thread
    private volatile long reads;
    private volatile long writes;
    private volatile long evictions;
    private volatile int size;

    /**
     * @param state the keyed state behind the cache
     * @param keys the operator's key context, or {@code null} for a pass-through cache
     * @param capacity keys held at most; 0 for a pass-through cache
     * @param what what is cached, for the log line that reports the capacity (e.g. "flow tables of 9846486 bytes")
     */
    public WriteBackCache(ValueState<S> state, KeyContext<K> keys, int capacity, String what) {
        this(state, keys, capacity, (ToLongFunction<? super S>) null);
        if (this.keys != null) {
            LOG.info("Keeping up to {} {} live between checkpoints (write-back cache of this operator instance)",
                    capacity, what);
        }
    }

    private WriteBackCache(ValueState<S> state, KeyContext<K> keys, long capacity, ToLongFunction<? super S> weigher) {
        if (capacity < 0) {
            throw new IllegalArgumentException("capacity must be >= 0, got " + capacity);
        }
        this.state = state;
        this.keys = capacity == 0 ? null : keys;
        this.capacity = capacity;
        this.weigher = weigher;
    }

    /**
     * A cache of structures whose sizes differ or change: it holds structures of at most {@code budgetBytes} in all,
     * each weighed by {@code bytes} when it enters the cache and again at every {@link #update} (so a structure that
     * grows in place between two updates may take the cache over its budget by that growth until the next). A
     * structure heavier than the whole budget is never held: its updates go to the state.
     *
     * @param budgetBytes bytes of structures held at most; 0 for a pass-through cache
     * @param bytes the heap a structure takes, cheap to call (it is called at every update)
     * @param what what is cached, for the log line (e.g. "heavy-hitter window rings")
     */
    public static <K, S> WriteBackCache<K, S> weighed(ValueState<S> state, KeyContext<K> keys, long budgetBytes,
                                                      ToLongFunction<? super S> bytes, String what) {
        WriteBackCache<K, S> cache = new WriteBackCache<>(state, keys, budgetBytes, bytes);
        if (cache.keys != null) {
            LOG.info("Keeping up to {} bytes of {} live between checkpoints (write-back cache of this operator"
                    + " instance)", budgetBytes, what);
        }
        return cache;
    }

    /** Whether structures are held here between checkpoints (false: every call goes to the state). */
    public boolean caching() {
        return keys != null;
    }

    /** The current key's structure: the live one if cached, else read from state (and cached if present). */
    public S value() throws IOException {
        if (keys == null) {
            reads++;
            return state.value();
        }
        K key = keys.currentKey();
        Entry<S> e = entries.get(key);
        if (e != null) {
            return e.value;
        }
        reads++;
        S value = state.value();
        if (value != null) {
            admit(key, value, false);
        }
        return value;
    }

    /** Sets the current key's structure; written to the state at the latest before the next checkpoint. */
    public void update(S value) throws IOException {
        if (keys == null) {
            writes++;
            state.update(value);
            return;
        }
        K key = keys.currentKey();
        Entry<S> e = entries.get(key);
        if (e == null) {
            admit(key, value, true);
            return;
        }
        e.value = value;
        e.changed = true;
        if (weigher != null) {
            long weight = weigher.applyAsLong(value);
            held += weight - e.weight;
            e.weight = weight;
            if (weight > capacity) { // grew beyond the whole budget: no longer held (the others stay)
                writeBack(key, e); // first: if the write fails, the change stays held, marked changed
                entries.remove(key);
                held -= weight;
                evictions++;
            } else if (held > capacity) {
                makeRoom(key, 0); // the least recently used others go
            }
            publish();
        }
    }

    /** Removes the current key's structure from the cache and the state. */
    public void clear() {
        if (keys != null) {
            Entry<S> e = entries.remove(keys.currentKey());
            if (e != null) {
                held -= e.weight;
            }
            publish();
        }
        state.clear();
    }

    /** Writes every changed structure to the state; the key context is restored afterwards. */
    public void flush() throws IOException {
        if (keys == null || entries.isEmpty()) {
            return;
        }
        K current = keys.currentKey();
        try {
            for (Map.Entry<K, Entry<S>> e : entries.entrySet()) {
                Entry<S> entry = e.getValue();
                if (entry.changed) {
                    writeBack(e.getKey(), entry);
                }
            }
        } finally {
            if (current != null) {
                keys.setCurrentKey(current);
            }
        }
    }

    /** Keys whose structure is held. */
    public int size() {
        return size;
    }

    /** What the held structures weigh: their bytes for a {@link #weighed} cache, else their number. */
    public long weight() {
        return held;
    }

    /**
     * Whether {@code backend} stores values serialized, so that each {@code value()} deserializes a copy and a cache
     * of live structures pays: RocksDB and ForSt (also under the changelog backend). False for the heap backend
     * (also under the changelog backend, whose snapshots copy-on-write the heap's live objects: a cache would change
     * them behind it), for Flink's batch-execution backend (which drops a key's state when the key changes) and for
     * any backend this library does not know: those run pass-through.
     */
    public static boolean storesSerialized(KeyedStateBackend<?> backend) {
        KeyedStateBackend<?> inner = backend instanceof TestableKeyedStateBackend<?> wrapper
                ? wrapper.getDelegatedKeyedStateBackend(true) : backend;
        String name = inner.getClass().getName();
        return name.equals("org.apache.flink.state.rocksdb.RocksDBKeyedStateBackend")
                || name.startsWith("org.apache.flink.state.forst.");
    }

    /** Structures read from the state: every {@link #value()} of a pass-through cache, else the misses. */
    public long reads() {
        return reads;
    }

    /** Structures written to the state: every {@link #update} of a pass-through cache, else the write-backs. */
    public long writes() {
        return writes;
    }

    /**
     * Times a structure left the cache, or was not let in when set, for want of room: the least recently used ones
     * dropped to make room for another key's (written back first if changed), a held one that outgrew the whole
     * budget, and one set ({@link #update}) while heavier than the whole budget (written straight to the state). Each
     * means that the key's next use reads its structure from the state again; a cache that evicts at every record
     * costs what no cache costs, a read and a write of the whole structure per record. Snapshots write back without
     * evicting. 0 for a pass-through cache.
     */
    public long evictions() {
        return evictions;
    }

    private void admit(K key, S value, boolean changed) throws IOException {
        long weight = weigher == null ? 1 : weigher.applyAsLong(value);
        if (weight > capacity) { // never fits: not held
            if (changed) {
                writes++;
                evictions++;
                state.update(value);
            }
            return;
        }
        makeRoom(key, weight);
        entries.put(key, new Entry<>(value, changed, weight));
        held += weight;
        publish();
    }

    /**
     * Writes back and drops the least recently used structures other than {@code key}'s until {@code incoming} more
     * fits; the current key is {@code key} again afterwards.
     */
    private void makeRoom(K key, long incoming) throws IOException {
        Iterator<Map.Entry<K, Entry<S>>> eldest = entries.entrySet().iterator();
        while (held + incoming > capacity && eldest.hasNext()) {
            Map.Entry<K, Entry<S>> victim = eldest.next();
            if (victim.getKey().equals(key)) {
                continue;
            }
            if (victim.getValue().changed) {
                try {
                    writeBack(victim.getKey(), victim.getValue()); // writes no entry of the map: the iteration holds
                } finally {
                    keys.setCurrentKey(key);
                }
            }
            // dropped only once its change is in the state: a write that fails leaves it held and marked changed
            eldest.remove();
            held -= victim.getValue().weight;
            evictions++;
            publish();
        }
    }

    /** The held structures' weights summed afresh (tests compare it with {@link #weight()}). */
    long reweighHeld() {
        long sum = 0;
        for (Entry<S> e : entries.values()) {
            sum += weigher == null ? 1 : weigher.applyAsLong(e.value);
        }
        return sum;
    }

    /** Updates the gauges' copies (read by metric reporters on other threads). */
    private void publish() {
        size = entries.size();
        heldBytes = held;
    }

    private void writeBack(K key, Entry<S> entry) throws IOException {
        keys.setCurrentKey(key);
        state.update(entry.value);
        entry.changed = false;
        writes++; // single writer: the task's thread
    }

    /**
     * The key context a {@link WriteBackFunction} of {@code operator} gets (or an operator that writes back before its
     * snapshots itself): the operator's, if its keyed state backend {@link #storesSerialized stores values
     * serialized}, else {@code null} (nothing may be cached).
     */
    public static <K> KeyContext<K> keysOf(AbstractStreamOperator<?> operator) {
        if (!storesSerialized(operator.getKeyedStateBackend())) {
            return null;
        }
        return new KeyContext<>() {
            @Override
            @SuppressWarnings("unchecked")
            public K currentKey() {
                return (K) operator.getCurrentKey();
            }

            @Override
            public void setCurrentKey(K key) {
                operator.setCurrentKey(key);
            }
        };
    }

    /**
     * Registers the cache's gauges in {@code metrics}: {@code cachedScopes} (structures held), {@code stateReads} and
     * {@code stateWrites} (structures read from and written to the state backend), {@code stateEvictions}
     * ({@link #evictions}), and for a {@link #weighed} cache {@code cachedBytes} (what the held structures weigh).
     */
    public void registerMetrics(MetricGroup metrics) {
        metrics.gauge("cachedScopes", (Gauge<Integer>) this::size);
        if (weigher != null) {
            metrics.gauge("cachedBytes", (Gauge<Long>) () -> heldBytes);
        }
        metrics.gauge("stateReads", (Gauge<Long>) this::reads);
        metrics.gauge("stateWrites", (Gauge<Long>) this::writes);
        metrics.gauge("stateEvictions", (Gauge<Long>) this::evictions);
    }

    /** The operator's current key, and a way to switch it for a write-back. */
    public interface KeyContext<K> {
        K currentKey();

        void setCurrentKey(K key);
    }

    private static final class Entry<S> {
        S value;
        boolean changed;
        long weight;

        Entry(S value, boolean changed, long weight) {
            this.value = value;
            this.changed = changed;
            this.weight = weight;
        }
    }
}
