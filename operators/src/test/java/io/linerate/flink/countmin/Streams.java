package io.linerate.flink.countmin;

import io.linerate.flink.items.ItemSelector;
import io.linerate.sketches.frequency.CountMinSketch;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.java.tuple.Tuple2;
import org.apache.flink.api.java.tuple.Tuple3;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * Test streams: updates are (scope, item, weight), queries (scope, item). Items are Zipf-like over a fixed universe
 * so a few items are heavy and most are light; every stream comes from a fixed seed.
 */
final class Streams {

    static final TypeInformation<Tuple3<String, String, Long>> UPDATE = Types.TUPLE(Types.STRING, Types.STRING, Types.LONG);
    static final TypeInformation<Tuple2<String, String>> QUERY = Types.TUPLE(Types.STRING, Types.STRING);
    static final ItemSelector<Tuple3<String, String, Long>> UPDATE_ITEM = ItemSelector.strings(u -> u.f1);
    static final ItemSelector<Tuple2<String, String>> QUERY_ITEM = ItemSelector.strings(q -> q.f1);

    private Streams() {
    }

    /** {@code n} updates over {@code scopes} scopes and {@code universe} items, weights 1…5. */
    static List<Tuple3<String, String, Long>> updates(long seed, int n, int scopes, int universe) {
        SplittableRandom random = new SplittableRandom(seed);
        List<Tuple3<String, String, Long>> out = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            // item index ~ universe^u for uniform u: heavily skewed towards small indexes
            int item = (int) Math.min(universe - 1, Math.floor(Math.pow(universe, random.nextDouble())) - 1);
            out.add(Tuple3.of("scope-" + random.nextInt(scopes), "item-" + item, 1L + random.nextInt(5)));
        }
        return out;
    }

    /** A query per scope for each of the first {@code items} items (seen or not). */
    static List<Tuple2<String, String>> queries(int scopes, int items) {
        List<Tuple2<String, String>> out = new ArrayList<>();
        for (int s = 0; s < scopes; s++) {
            for (int i = 0; i < items; i++) {
                out.add(Tuple2.of("scope-" + s, "item-" + i));
            }
        }
        return out;
    }

    /** Exact weight per (scope, item). */
    static Map<String, Map<String, Long>> truth(List<Tuple3<String, String, Long>> updates) {
        Map<String, Map<String, Long>> out = new HashMap<>();
        for (Tuple3<String, String, Long> u : updates) {
            out.computeIfAbsent(u.f0, k -> new HashMap<>()).merge(u.f1, u.f2, Long::sum);
        }
        return out;
    }

    /** The sketch per scope a correct operator holds: the same shape and seed fed the same updates. */
    static Map<String, CountMinSketch> model(CountMinSizing sizing, List<Tuple3<String, String, Long>> updates) {
        Map<String, CountMinSketch> out = new HashMap<>();
        for (Tuple3<String, String, Long> u : updates) {
            out.computeIfAbsent(u.f0, k -> sizing.newSketch()).update(u.f1, u.f2);
        }
        return out;
    }
}
