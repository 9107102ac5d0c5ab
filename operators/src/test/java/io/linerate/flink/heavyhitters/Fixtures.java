package io.linerate.flink.heavyhitters;

import io.linerate.flink.items.ItemSelector;
import io.linerate.flink.state.OperatorMetrics;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.java.functions.KeySelector;
import org.apache.flink.api.java.tuple.Tuple3;
import org.apache.flink.runtime.operators.testutils.MockEnvironment;
import org.apache.flink.runtime.operators.testutils.MockEnvironmentBuilder;
import org.apache.flink.runtime.state.StateBackend;
import org.apache.flink.streaming.api.watermark.Watermark;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;

/** Records (link, item, length), a Zipf generator with a fixed seed, the exact model and harness helpers. */
final class Fixtures {

    static final TypeInformation<Tuple3<String, Long, Integer>> TYPE = Types.TUPLE(Types.STRING, Types.LONG, Types.INT);
    static final KeySelector<Tuple3<String, Long, Integer>, String> LINK = new Link();
    static final ItemSelector<Tuple3<String, Long, Integer>> ITEM = ItemSelector.longs(r -> r.f1);
    static final int MAX_PARALLELISM = 128;

    private Fixtures() {
    }

    /** Named class: a lambda key selector would not be comparable across harnesses. */
    static final class Link implements KeySelector<Tuple3<String, Long, Integer>, String> {
        @Override
        public String getKey(Tuple3<String, Long, Integer> r) {
            return r.f0;
        }
    }

    /** Zipf(s) ranks over n items by inverse CDF; item of rank r is a scrambled long. */
    static final class Zipf {
        private final double[] cdf;
        private final SplittableRandom random;

        Zipf(int n, double s, long seed) {
            cdf = new double[n];
            double sum = 0;
            for (int i = 0; i < n; i++) {
                sum += 1 / Math.pow(i + 1, s);
                cdf[i] = sum;
            }
            for (int i = 0; i < n; i++) {
                cdf[i] /= sum;
            }
            random = new SplittableRandom(seed);
        }

        long next() {
            double u = random.nextDouble();
            int lo = 0;
            int hi = cdf.length - 1;
            while (lo < hi) {
                int mid = (lo + hi) >>> 1;
                if (cdf[mid] < u) {
                    lo = mid + 1;
                } else {
                    hi = mid;
                }
            }
            return lo * 0x9E3779B97F4A7C15L + 17;
        }

        int length() {
            return 40 + random.nextInt(1460);
        }
    }

    /** A stream element: a record with its timestamp, or a watermark. */
    record Event(Tuple3<String, Long, Integer> record, long time, boolean watermark) {
        static Event record(String link, long item, int length, long time) {
            return new Event(Tuple3.of(link, item, length), time, false);
        }

        static Event watermark(long time) {
            return new Event(null, time, true);
        }
    }

    /**
     * Zipf records for {@code links} over sub-windows [0, subWindows) of {@code slide} ms, {@code perSlide} records
     * per link per sub-window, in time order; a watermark at each sub-window end − 1.
     */
    static List<Event> zipfStream(List<String> links, int subWindows, long slide, int perSlide, long seed) {
        Zipf zipf = new Zipf(2_000, 1.1, seed);
        List<Event> events = new ArrayList<>();
        for (int s = 0; s < subWindows; s++) {
            for (int i = 0; i < perSlide; i++) {
                for (String link : links) {
                    long time = s * slide + (long) i * slide / perSlide;
                    events.add(Event.record(link, zipf.next(), zipf.length(), time));
                }
            }
            events.add(Event.watermark(s * slide + slide - 1));
        }
        return events;
    }

    /** Exact weights per (link, sub-window index) per item. */
    static Map<String, Map<Long, Map<Long, Long>>> exact(List<Event> events, long slide, boolean bytes) {
        Map<String, Map<Long, Map<Long, Long>>> model = new HashMap<>();
        for (Event e : events) {
            if (!e.watermark()) {
                model.computeIfAbsent(e.record().f0, l -> new HashMap<>())
                        .computeIfAbsent(Math.floorDiv(e.time(), slide), s -> new HashMap<>())
                        .merge(e.record().f1, bytes ? (long) e.record().f2 : 1L, Long::sum);
            }
        }
        return model;
    }

    /** The exact weights of a window [first, last] of sub-windows. */
    static Map<Long, Long> window(Map<Long, Map<Long, Long>> perSub, long first, long last) {
        Map<Long, Long> out = new HashMap<>();
        for (long s = first; s <= last; s++) {
            perSub.getOrDefault(s, Map.of()).forEach((item, w) -> out.merge(item, w, Long::sum));
        }
        return out;
    }

    static KeyedOneInputStreamOperatorTestHarness<String, Tuple3<String, Long, Integer>, HeavyHitterReport<String>>
            harness(HeavyHitterDetector<Tuple3<String, Long, Integer>, String> detector, int parallelism, int subtask)
            throws Exception {
        return new KeyedOneInputStreamOperatorTestHarness<>(detector.operator(TYPE, Types.STRING), LINK, Types.STRING,
                MAX_PARALLELISM, parallelism, subtask);
    }

    /** A harness whose operator's metrics land in {@code metrics}, on {@code backend} (null: the harness's heap). */
    static KeyedOneInputStreamOperatorTestHarness<String, Tuple3<String, Long, Integer>, HeavyHitterReport<String>>
            harness(HeavyHitterDetector<Tuple3<String, Long, Integer>, String> detector, StateBackend backend,
                    OperatorMetrics metrics) throws Exception {
        MockEnvironment env = new MockEnvironmentBuilder().setMaxParallelism(MAX_PARALLELISM).setParallelism(1)
                .setSubtaskIndex(0).setMetricGroup(metrics).build();
        var h = new KeyedOneInputStreamOperatorTestHarness<>(detector.operator(TYPE, Types.STRING), LINK,
                Types.STRING, env);
        if (backend != null) {
            h.setStateBackend(backend);
        }
        return h;
    }

    static void feed(KeyedOneInputStreamOperatorTestHarness<String, Tuple3<String, Long, Integer>, ?> harness,
                     List<Event> events) throws Exception {
        for (Event e : events) {
            if (e.watermark()) {
                harness.processWatermark(new Watermark(e.time()));
            } else {
                harness.processElement(new StreamRecord<>(e.record(), e.time()));
            }
        }
    }

    static HeavyHitterDetector.Builder<Tuple3<String, Long, Integer>, String> builder() {
        return HeavyHitterDetector.builder(LINK, ITEM);
    }

    static String render(long item) {
        return Long.toString(item);
    }

    /** Everything the operator emitted, in order: reports and alerts rendered by their toString. */
    static List<String> drain(KeyedOneInputStreamOperatorTestHarness<String, ?, HeavyHitterReport<String>> h) {
        List<String> out = new ArrayList<>();
        h.extractOutputValues().forEach(r -> out.add(r.toString()));
        var alerts = h.getSideOutput(HeavyHitterDetector.alertTag(Types.STRING));
        if (alerts != null) {
            alerts.forEach(a -> out.add(a.getValue().toString()));
            alerts.clear();
        }
        h.getOutput().clear();
        return out;
    }
}
