package io.linerate.flink.heavyhitters;

import io.linerate.flink.items.ElementsOf;
import io.linerate.flink.items.ItemSelector;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.function.Consumer;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.java.functions.KeySelector;
import org.apache.flink.api.java.tuple.Tuple4;

/**
 * Batch fixtures: elements (link, item, bytes, time), batches (link, items[], bytes[], times[]) of one link, and a
 * seeded stream of batches and watermarks that mixes good, late and malformed elements.
 */
final class Batches {

    /** An element: (link, item, bytes, event time). */
    static final TypeInformation<Tuple4<String, Long, Integer, Long>> ELEMENT =
            Types.TUPLE(Types.STRING, Types.LONG, Types.INT, Types.LONG);
    /** A batch of one link: (link, items, bytes, event times). */
    static final TypeInformation<Tuple4<String, long[], int[], long[]>> BATCH = Types.TUPLE(Types.STRING,
            Types.PRIMITIVE_ARRAY(Types.LONG), Types.PRIMITIVE_ARRAY(Types.INT), Types.PRIMITIVE_ARRAY(Types.LONG));
    /** The item the selector rejects. */
    static final long BAD_ITEM = -42;

    private Batches() {
    }

    static final class ElementLink implements KeySelector<Tuple4<String, Long, Integer, Long>, String> {
        @Override
        public String getKey(Tuple4<String, Long, Integer, Long> r) {
            return r.f0;
        }
    }

    static final class BatchLink implements KeySelector<Tuple4<String, long[], int[], long[]>, String> {
        @Override
        public String getKey(Tuple4<String, long[], int[], long[]> b) {
            return b.f0;
        }
    }

    /** A fresh element object per element (the harness keeps references to side-output values). */
    static final class Fresh implements ElementsOf<Tuple4<String, long[], int[], long[]>, Tuple4<String, Long, Integer, Long>> {
        @Override
        public void forEach(Tuple4<String, long[], int[], long[]> b, Consumer<? super Tuple4<String, Long, Integer, Long>> each) {
            for (int i = 0; i < b.f1.length; i++) {
                each.accept(Tuple4.of(b.f0, b.f1[i], b.f2[i], b.f3[i]));
            }
        }
    }

    /** One mutable element reused for every element of every batch (a flyweight, as the packet format's reader). */
    static final class Flyweight implements ElementsOf<Tuple4<String, long[], int[], long[]>, Tuple4<String, Long, Integer, Long>> {
        private transient Tuple4<String, Long, Integer, Long> element;

        @Override
        public void forEach(Tuple4<String, long[], int[], long[]> b, Consumer<? super Tuple4<String, Long, Integer, Long>> each) {
            if (element == null) {
                element = new Tuple4<>();
            }
            for (int i = 0; i < b.f1.length; i++) {
                element.setFields(b.f0, b.f1[i], b.f2[i], b.f3[i]);
                each.accept(element);
            }
        }
    }

    /** Sliding 2 s / 1 s, byte weights, alerts; per-element timestamps if {@code elementTimes}. */
    static HeavyHitterDetector<Tuple4<String, Long, Integer, Long>, String> detector(boolean elementTimes) {
        return builder(elementTimes).build();
    }

    /** The builder of {@link #detector}, for a test that changes more. */
    static HeavyHitterDetector.Builder<Tuple4<String, Long, Integer, Long>, String> builder(boolean elementTimes) {
        var builder = HeavyHitterDetector.builder(new ElementLink(),
                        ItemSelector.<Tuple4<String, Long, Integer, Long>>longs(r -> {
                            if (r.f1 == BAD_ITEM) {
                                throw new IllegalArgumentException("bad item");
                            }
                            return r.f1;
                        }))
                .weight(r -> r.f2).sliding(Duration.ofSeconds(2), Duration.ofSeconds(1)).topK(5).phi(0.02)
                .capacity(60).alertAtFraction(0.05, 2_000);
        if (elementTimes) {
            builder.timestamps(r -> {
                if (r.f3 < 0) {
                    throw new IllegalArgumentException("negative time " + r.f3);
                }
                return r.f3;
            });
        }
        return builder;
    }

    /** A batch with its record timestamp (null: none), or a watermark. */
    record Step(Tuple4<String, long[], int[], long[]> batch, Long timestamp, long watermark) {
        boolean isWatermark() {
            return batch == null;
        }

        /** The batch's elements as records (value, record timestamp or null), in order. */
        List<Tuple4<String, Long, Integer, Long>> elements() {
            List<Tuple4<String, Long, Integer, Long>> out = new ArrayList<>();
            new Fresh().forEach(batch, out::add);
            return out;
        }
    }

    /**
     * Batches of 1..40 elements per link in time order over {@code subWindows} sub-windows of 1 s, a watermark at
     * each sub-window end − 1. From sub-window 2 on, some batches mix in late elements (two sub-windows back, whose
     * first window has been reported), bad items, negative byte counts and negative times (rejected by the
     * per-element timestamps); a few batch records are late as a whole, and at most one per sub-window has no
     * record timestamp.
     */
    static List<Step> stream(List<String> links, int subWindows, int perLinkPerSub, long seed) {
        Fixtures.Zipf zipf = new Fixtures.Zipf(400, 1.1, seed);
        SplittableRandom random = new SplittableRandom(seed);
        List<Step> steps = new ArrayList<>();
        for (int s = 0; s < subWindows; s++) {
            int[] left = new int[links.size()];
            java.util.Arrays.fill(left, perLinkPerSub);
            int done = 0;
            boolean untimed = false;
            while (done < links.size()) {
                int l = random.nextInt(links.size());
                if (left[l] == 0) {
                    continue;
                }
                int n = Math.min(left[l], 1 + random.nextInt(40));
                long[] items = new long[n];
                int[] bytes = new int[n];
                long[] times = new long[n];
                for (int i = 0; i < n; i++) {
                    items[i] = zipf.next();
                    bytes[i] = zipf.length();
                    times[i] = s * 1000L + (long) (perLinkPerSub - left[l] + i) * 1000 / perLinkPerSub;
                    if (s >= 2 && random.nextInt(25) == 0) {
                        switch (random.nextInt(4)) {
                            case 0 -> times[i] -= 2000; // late
                            case 1 -> items[i] = BAD_ITEM;
                            case 2 -> bytes[i] = -1;
                            default -> times[i] = -1; // the per-element timestamps reject it
                        }
                    }
                }
                left[l] -= n;
                if (left[l] == 0) {
                    done++;
                }
                Long ts = s * 1000L + (long) (perLinkPerSub - left[l] - n) * 1000 / perLinkPerSub;
                if (s >= 2 && !untimed && random.nextInt(10) == 0) {
                    ts = null;
                    untimed = true;
                } else if (s >= 2 && random.nextInt(15) == 0) {
                    ts -= 2000; // a late batch record (its elements' own times are not late)
                }
                steps.add(new Step(Tuple4.of(links.get(l), items, bytes, times), ts, 0));
            }
            steps.add(new Step(null, null, s * 1000L + 999));
        }
        return steps;
    }
}
