package io.linerate.flink.state;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.PrimitiveArrayTypeInfo;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.runtime.state.StateBackend;
import org.apache.flink.runtime.state.hashmap.HashMapStateBackend;
import org.apache.flink.state.rocksdb.EmbeddedRocksDBStateBackend;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;
import org.apache.flink.util.Collector;
import org.junit.jupiter.api.Test;

/**
 * {@link WriteBackCache#weighed} directly, on RocksDB, with structures that grow and shrink ({@code long[]} of the
 * length each record asks for): the held weight always equals the held structures' weights summed afresh and stays
 * within the budget; a held structure that grows beyond the whole budget leaves alone, the others stay; across a
 * snapshot and restore the outputs equal the heap backend's, where nothing is cached.
 */
@SuppressWarnings("try") // the harness's close() may throw InterruptedException
class WriteBackCacheTest {

    private static final long BUDGET = 8 * 40; // bytes: up to 40 longs held in all
    private static final int KEYS = 6;

    /** Records "key=length" (set the key's array to that length, bump its first slot) or "key=-" (clear). */
    static final class Arrays extends KeyedProcessFunction<String, String, String>
            implements WriteBackFunction<String> {
        private static final long serialVersionUID = 1L;
        private transient WriteBackCache.KeyContext<String> keys;
        transient WriteBackCache<String, long[]> cache;

        @Override
        public void bindKeys(WriteBackCache.KeyContext<String> keys) {
            this.keys = keys;
        }

        @Override
        public void writeBack() throws Exception {
            cache.flush();
        }

        @Override
        public void open(OpenContext context) {
            ValueState<long[]> state = getRuntimeContext().getState(new ValueStateDescriptor<>("arrays",
                    PrimitiveArrayTypeInfo.LONG_PRIMITIVE_ARRAY_TYPE_INFO));
            cache = WriteBackCache.weighed(state, keys, BUDGET, a -> 8L * a.length, "test arrays");
        }

        @Override
        public void processElement(String record, Context ctx, Collector<String> out) throws Exception {
            String length = record.substring(record.indexOf('=') + 1);
            if (length.equals("-")) {
                cache.clear();
                out.collect(ctx.getCurrentKey() + " cleared");
                return;
            }
            long[] a = cache.value();
            int n = Integer.parseInt(length);
            long count = a == null ? 0 : a[0];
            if (a == null || a.length != n) {
                a = new long[n];
            }
            a[0] = count + 1;
            cache.update(a);
            out.collect(ctx.getCurrentKey() + " " + n + " " + a[0]);
        }
    }

    private static KeyedOneInputStreamOperatorTestHarness<String, String, String> harness(StateBackend backend)
            throws Exception {
        var h = new KeyedOneInputStreamOperatorTestHarness<>(new WriteBackOperator<>(new Arrays()),
                r -> r.substring(0, r.indexOf('=')), Types.STRING);
        h.setStateBackend(backend);
        return h;
    }

    private static WriteBackCache<String, long[]> cacheOf(KeyedOneInputStreamOperatorTestHarness<String, String, ?> h) {
        @SuppressWarnings("unchecked")
        var op = (WriteBackOperator<String, String, String>) h.getOperator();
        return ((Arrays) op.getUserFunction()).cache;
    }

    private static List<String> records() {
        SplittableRandom random = new SplittableRandom(7);
        List<String> out = new ArrayList<>();
        for (int i = 0; i < 2_000; i++) {
            int key = random.nextInt(KEYS);
            int roll = random.nextInt(100);
            // mostly small arrays (several held at once), sometimes one beyond the whole budget, now and then a clear
            String length = roll < 3 ? "-" : roll < 8 ? "" + (41 + random.nextInt(20)) : "" + (1 + random.nextInt(16));
            out.add("k" + key + "=" + length);
        }
        return out;
    }

    private static void feed(KeyedOneInputStreamOperatorTestHarness<String, String, String> h, List<String> records,
                             boolean check) throws Exception {
        for (String r : records) {
            h.processElement(new StreamRecord<>(r));
            if (check) {
                WriteBackCache<String, long[]> cache = cacheOf(h);
                assertThat(cache.weight()).as("after %s", r).isEqualTo(cache.reweighHeld()).isBetween(0L, BUDGET);
            }
        }
    }

    @Test
    void rocksDbAcrossARestoreGivesTheHeapOutputWithTheWeightWithinTheBudget() throws Exception {
        List<String> records = records();
        int cut = records.size() / 2;
        List<String> expected;
        try (var heap = harness(new HashMapStateBackend())) {
            heap.open();
            feed(heap, records, false);
            assertThat(cacheOf(heap).caching()).isFalse();
            expected = heap.extractOutputValues();
        }
        List<String> out = new ArrayList<>();
        OperatorSubtaskState snapshot;
        try (var h = harness(new EmbeddedRocksDBStateBackend())) {
            h.open();
            assertThat(cacheOf(h).caching()).isTrue();
            feed(h, records.subList(0, cut), true);
            snapshot = h.snapshot(1, 1);
            out.addAll(h.extractOutputValues());
        }
        try (var h = harness(new EmbeddedRocksDBStateBackend())) {
            h.initializeState(snapshot);
            h.open();
            feed(h, records.subList(cut, records.size()), true);
            out.addAll(h.extractOutputValues());
        }
        assertThat(out).isEqualTo(expected);
        assertThat(expected).anyMatch(s -> s.endsWith("cleared")).anyMatch(s -> s.matches("k\\d 4\\d .*"));
    }

    @Test
    void aHeldStructureGrowingBeyondTheBudgetLeavesAloneAndIsWrittenBack() throws Exception {
        try (var h = harness(new EmbeddedRocksDBStateBackend())) {
            h.open();
            WriteBackCache<String, long[]> cache = cacheOf(h);
            feed(h, List.of("a=10", "b=10", "c=10"), true);
            assertThat(cache.size()).isEqualTo(3);
            assertThat(cache.weight()).isEqualTo(240);
            feed(h, List.of("c=20"), true); // 80 + 80 + 160 = 320: fits exactly
            assertThat(cache.size()).isEqualTo(3);
            feed(h, List.of("b=20"), true); // 80 + 160 + 160 > 320: a, the least recent, goes
            assertThat(cache.size()).isEqualTo(2);
            assertThat(cache.weight()).isEqualTo(320);
            long writes = cache.writes();
            feed(h, List.of("c=50"), true); // 400 > 320 on its own: c leaves, b stays
            assertThat(cache.size()).isEqualTo(1);
            assertThat(cache.weight()).isEqualTo(160);
            assertThat(cache.writes()).as("c written back as it left").isEqualTo(writes + 1);
            feed(h, List.of("c=50", "a=10"), true); // c read from the state, with its count
            assertThat(h.extractOutputValues()).endsWith("c 50 4", "a 10 2");
        }
    }

    @Test
    void evictionsCountEveryStructureThatLeftOrWasRefusedForWantOfRoomButNotSnapshots() throws Exception {
        try (var h = harness(new EmbeddedRocksDBStateBackend())) {
            h.open();
            WriteBackCache<String, long[]> cache = cacheOf(h);
            feed(h, List.of("a=10", "b=10", "c=10", "c=20"), true); // 320 bytes: everything fits
            assertThat(cache.evictions()).isZero();
            h.snapshot(1, 1); // writes back, evicts nothing
            assertThat(cache.evictions()).isZero();
            assertThat(cache.size()).isEqualTo(3);
            feed(h, List.of("b=20"), true); // a, the least recent, makes room
            assertThat(cache.evictions()).isEqualTo(1);
            feed(h, List.of("c=50"), true); // c outgrows the whole budget: leaves
            assertThat(cache.evictions()).isEqualTo(2);
            feed(h, List.of("c=50", "c=50"), true); // too heavy to enter: refused at each record, written through
            assertThat(cache.evictions()).isEqualTo(4);
            feed(h, List.of("a=10", "b=20"), true); // a read back (fits beside b), b still held
            assertThat(cache.evictions()).isEqualTo(4);
            assertThat(cache.size()).isEqualTo(2);
        }
    }
}
