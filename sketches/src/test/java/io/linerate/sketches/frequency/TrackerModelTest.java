package io.linerate.sketches.frequency;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.linerate.sketches.hash.FiveTuple;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.function.Function;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/**
 * Model-based checks of SpaceSaving and CountMinHeap against an exact HashMap of true weights: randomized
 * streams with fixed seeds, every documented guarantee checked after updates, merges and image round trips.
 */
class TrackerModelTest {

    /** How a stream's item ids become items of a tracker's kind, and reported items become comparable keys. */
    enum Kind {
        LONGS, TUPLES, BYTES;

        KeyKind keyKind() {
            switch (this) {
                case LONGS:
                    return KeyKind.longs();
                case TUPLES:
                    return KeyKind.fiveTuples();
                default:
                    return KeyKind.bytes(13);
            }
        }

        void update(HeavyHitters h, long id, long weight) {
            switch (this) {
                case LONGS:
                    h.update(id * 0x9E3779B97F4A7C15L, weight);
                    break;
                case TUPLES:
                    h.update(tuple(id), weight);
                    break;
                default: {
                    byte[] b = bytes(id);
                    byte[] padded = new byte[b.length + 5];
                    System.arraycopy(b, 0, padded, 3, b.length);
                    padded[0] = 0x7F;
                    padded[padded.length - 1] = 0x7F;
                    h.update(padded, 3, b.length, weight);
                }
            }
        }

        Object key(long id) {
            switch (this) {
                case LONGS:
                    return id * 0x9E3779B97F4A7C15L;
                case TUPLES:
                    return tuple(id);
                default:
                    return HexFormat.of().formatHex(bytes(id));
            }
        }

        Object reported(Object item) {
            return this == BYTES ? HexFormat.of().formatHex((byte[]) item) : item;
        }

        static FiveTuple tuple(long id) {
            int port = (int) (id & 0xFFFF);
            return id % 3 == 0
                    ? FiveTuple.ipv6(id, ~id, -id, id << 7, port, 0xFFFF - port, 17)
                    : FiveTuple.ipv4((int) (id * 2654435761L), (int) ~id, port, 443, (int) (id % 256));
        }

        /** Lengths 0..13, with leading and trailing zero bytes for some ids. */
        static byte[] bytes(long id) {
            int len = (int) Long.remainderUnsigned(id * 31, 14);
            byte[] b = new byte[len];
            for (int i = 0; i < len; i++) {
                b[i] = (byte) (id >>> (8 * (i % 8)));
            }
            if (len > 2 && id % 2 == 0) {
                b[len - 1] = 0;
                b[0] = (byte) 0x80;
            }
            return b;
        }
    }

    /** The exact weights, as BigIntegers (so saturation in the tracker can be told apart). */
    static final class Model {
        final Map<Object, BigInteger> weights = new HashMap<>();
        BigInteger total = BigInteger.ZERO;

        void add(Object key, long weight) {
            weights.merge(key, BigInteger.valueOf(weight), BigInteger::add);
            total = total.add(BigInteger.valueOf(weight));
        }

        Model union(Model other) {
            Model m = new Model();
            weights.forEach((k, v) -> m.weights.merge(k, v, BigInteger::add));
            other.weights.forEach((k, v) -> m.weights.merge(k, v, BigInteger::add));
            m.total = total.add(other.total);
            return m;
        }

        long weight(Object key) {
            return weights.getOrDefault(key, BigInteger.ZERO).longValueExact();
        }
    }

    /** Results with byte-string items replaced by their hex, so lists compare by value. */
    static List<HeavyHitter> norm(List<HeavyHitter> list, Kind kind) {
        List<HeavyHitter> out = new ArrayList<>();
        for (HeavyHitter h : list) {
            out.add(new HeavyHitter(kind.reported(h.item()), h.estimate(), h.lowerBound(), h.upperBound()));
        }
        return out;
    }

    static String name(Stream s) {
        return s == ZIPF ? "ZIPF" : s == ADVERSARIAL ? "ADVERSARIAL" : "HUGE";
    }

    static final BigInteger MAX = BigInteger.valueOf(Long.MAX_VALUE);

    /**
     * Checks every documented guarantee of {@code h} against {@code model} (whose total fits in a long).
     *
     * <p>The checks per item (bounds, order, completeness) are plain conditions that build their message only on a
     * failure, in methods of their own: this method ran a few thousand times with an AssertJ assertion per item,
     * and C2 compiled it ten times over (each time the tracker or key kind changed) at about 2 s each, more time
     * than the trackers took.
     */
    static void check(String what, HeavyHitters h, Model model, Kind kind) {
        assertThat(model.total.compareTo(MAX)).as("test stream's total fits").isLessThanOrEqualTo(0);
        long n = model.total.longValueExact();
        assertThat(h.totalWeight()).as(what + ": N").isEqualTo(n);
        int capacity = h instanceof SpaceSaving ? ((SpaceSaving) h).capacity() : ((CountMinHeap) h).capacity();
        long unmonitored = h instanceof SpaceSaving ? ((SpaceSaving) h).unmonitoredBound()
                : ((CountMinHeap) h).unmonitoredBound();
        List<HeavyHitter> all = h.topK(Integer.MAX_VALUE);
        assertThat(all.size()).as(what + ": monitored ≤ capacity").isLessThanOrEqualTo(capacity);
        Map<Object, HeavyHitter> monitored = checkBounds(what, all, model, kind);
        checkOrder(what, all);
        for (int k : new int[] {0, 1, 3, capacity, capacity + 5}) {
            List<HeavyHitter> got = norm(h.topK(k), kind);
            List<HeavyHitter> want = norm(all.subList(0, Math.min(k, all.size())), kind);
            require(got.equals(want), () -> what + ": topK(" + k + ") is " + got + ", expected " + want);
        }
        checkMonitored(what, monitored, model, unmonitored);
        if (h instanceof SpaceSaving) {
            // c_min ≤ N/m
            assertThat((double) unmonitored).as(what + ": unmonitoredBound ≤ N/m")
                    .isLessThanOrEqualTo((double) n / capacity);
        }
        for (double phi : new double[] {0.001, 0.01, 0.05, 0.1, 0.3, 0.5, 0.9, 1.0 / capacity + 1e-9}) {
            if (phi > 0 && phi < 1) {
                checkHeavyHitters(what, h, model, kind, all, phi, n, capacity);
            }
        }
    }

    /** Each reported item once, with lower ≤ true weight ≤ upper and the estimate between them; by reported key. */
    static Map<Object, HeavyHitter> checkBounds(String what, List<HeavyHitter> all, Model model, Kind kind) {
        Map<Object, HeavyHitter> monitored = new HashMap<>();
        for (HeavyHitter hh : all) {
            Object key = kind.reported(hh.item());
            require(monitored.put(key, hh) == null, () -> what + ": reported twice " + key);
            long truth = model.weight(key);
            require(hh.lowerBound() >= 0 && hh.lowerBound() <= truth, () -> what + ": lower of " + key + " is "
                    + hh.lowerBound() + ", not in [0, " + truth + "]");
            require(hh.upperBound() >= truth, () -> what + ": upper of " + key + " is " + hh.upperBound()
                    + " < " + truth);
            require(hh.estimate() >= hh.lowerBound() && hh.estimate() <= hh.upperBound(),
                    () -> what + ": estimate within bounds of " + key + ": " + hh);
        }
        return monitored;
    }

    /** Order: lower bound descending, ties by the larger estimate. */
    static void checkOrder(String what, List<HeavyHitter> all) {
        for (int i = 1; i < all.size(); i++) {
            HeavyHitter a = all.get(i - 1);
            HeavyHitter b = all.get(i);
            int at = i;
            require(a.lowerBound() > b.lowerBound()
                    || a.lowerBound() == b.lowerBound() && a.estimate() >= b.estimate(),
                    () -> what + ": topK order at " + at + ": " + a + " then " + b);
        }
    }

    /** Every item heavier than the unmonitored bound is monitored. */
    static void checkMonitored(String what, Map<Object, HeavyHitter> monitored, Model model, long unmonitored) {
        for (Map.Entry<Object, BigInteger> e : model.weights.entrySet()) {
            if (e.getValue().longValueExact() > unmonitored) {
                require(monitored.containsKey(e.getKey()), () -> what + ": " + e.getKey() + " of weight "
                        + e.getValue() + " > unmonitoredBound " + unmonitored + " is not monitored");
            }
        }
    }

    /**
     * heavyHitters(φ) is the topK(∞) entries whose upper bound reaches φ·N, and, where the tracker says its answer is
     * complete for φ, holds every item of true weight ≥ φ·N.
     */
    static void checkHeavyHitters(String what, HeavyHitters h, Model model, Kind kind, List<HeavyHitter> all,
                                  double phi, long n, int capacity) {
        List<HeavyHitter> hh = h.heavyHitters(phi);
        double threshold = phi * n;
        List<HeavyHitter> expected = new ArrayList<>();
        for (HeavyHitter x : all) {
            if (x.upperBound() >= threshold) {
                expected.add(x);
            }
        }
        List<HeavyHitter> got = norm(hh, kind);
        List<HeavyHitter> want = norm(expected, kind);
        require(got.equals(want), () -> what + ": heavyHitters(" + phi + ") is " + got + ", expected " + want);
        boolean complete = h instanceof SpaceSaving ? phi > 1.0 / capacity : ((CountMinHeap) h).isComplete(phi);
        if (!complete) {
            return;
        }
        Set<Object> reported = new HashSet<>();
        for (HeavyHitter x : hh) {
            reported.add(kind.reported(x.item()));
        }
        for (Map.Entry<Object, BigInteger> e : model.weights.entrySet()) {
            if (e.getValue().longValueExact() >= threshold) {
                require(reported.contains(e.getKey()), () -> what + ": heavyHitters(" + phi + ") misses "
                        + e.getKey() + " of weight " + e.getValue() + ", N=" + n);
            }
        }
    }

    /** A plain check for the per-item loops: the message is built only if {@code ok} is false. */
    static void require(boolean ok, Supplier<String> message) {
        if (!ok) {
            throw new AssertionError(message.get());
        }
    }

    /** Round trips and copies must behave the same, now and after the same later updates. */
    static void checkImage(String what, HeavyHitters h, Kind kind, long seed) {
        byte[] image = h.toByteArray();
        HeavyHitters read = h instanceof SpaceSaving ? SpaceSaving.fromByteArray(image)
                : CountMinHeap.fromByteArray(image);
        HeavyHitters copy = h.copy();
        for (int chunk : new int[] {16, 17, 4096}) {
            checkStreamedImage(what, h, image, chunk);
        }
        assertThat(read.toByteArray()).as(what + ": image of read").isEqualTo(image);
        assertThat(copy.toByteArray()).as(what + ": image of copy").isEqualTo(image);
        assertThat(read.memoryBytes()).as(what + ": read memory").isLessThanOrEqualTo(h instanceof SpaceSaving
                ? SpaceSaving.memoryBytesFor(kind.keyKind(), ((SpaceSaving) h).capacity())
                : Long.MAX_VALUE);
        assertThat(copy.memoryBytes()).isEqualTo(h.memoryBytes());
        HeavyHitters orig = h.copy();
        updateInLockstep(what, kind, seed, orig, read, copy);
        assertThat(read.toByteArray()).as(what + ": image of read after updates").isEqualTo(orig.toByteArray());
        assertThat(copy.toByteArray()).as(what + ": image of copy after updates").isEqualTo(orig.toByteArray());
        assertThat(norm(read.topK(1000), kind)).isEqualTo(norm(orig.topK(1000), kind));
    }

    /**
     * The streamed image of {@code h} written and read back through chunks of {@code chunk} bytes. (This and
     * {@link #updateInLockstep} are methods of their own to keep {@link #checkImage} small for the JIT, see
     * {@link #check}.)
     */
    static void checkStreamedImage(String what, HeavyHitters h, byte[] image, int chunk) {
        java.io.ByteArrayOutputStream streamed = new java.io.ByteArrayOutputStream();
        h.writeImage(new io.linerate.sketches.image.ImageWriter.Sink() {
            @Override
            public void begin(int imageLength) {
                assertThat(imageLength).isEqualTo(image.length);
            }

            @Override
            public void write(byte[] bytes, int offset, int length) {
                streamed.write(bytes, offset, length);
            }

            @Override
            public int chunkBytes() {
                return chunk;
            }
        });
        assertThat(streamed.toByteArray()).as(what + ": streamed image, chunk " + chunk).isEqualTo(image);
        java.io.ByteArrayInputStream in = new java.io.ByteArrayInputStream(image);
        io.linerate.sketches.image.ImageReader.Source source = new io.linerate.sketches.image.ImageReader.Source() {
            @Override
            public void read(byte[] bytes, int offset, int length) throws java.io.IOException {
                if (in.readNBytes(bytes, offset, length) != length) {
                    throw new java.io.EOFException();
                }
            }

            @Override
            public int chunkBytes() {
                return chunk;
            }
        };
        HeavyHitters viaStream = h instanceof SpaceSaving ? SpaceSaving.readImage(source, image.length)
                : CountMinHeap.readImage(source, image.length);
        assertThat(viaStream.toByteArray()).as(what + ": read from stream, chunk " + chunk).isEqualTo(image);
    }

    /** 3,000 updates from {@code seed} to each tracker; the read one must give the original's estimates. */
    static void updateInLockstep(String what, Kind kind, long seed, HeavyHitters orig, HeavyHitters read,
                                 HeavyHitters copy) {
        SplittableRandom r = new SplittableRandom(seed);
        for (int i = 0; i < 3000; i++) {
            long id = r.nextInt(400);
            long w = r.nextInt(4);
            kind.update(orig, id, w);
            kind.update(read, id, w);
            kind.update(copy, id, w);
            require(read.lastEstimate() == orig.lastEstimate(), () -> what + ": lastEstimate of the read tracker "
                    + read.lastEstimate() + ", of the original " + orig.lastEstimate());
        }
    }

    interface Sink {
        void add(long id, long weight);
    }

    static Sink into(HeavyHitters h, Model model, Kind kind, long offset) {
        return (id, w) -> {
            kind.update(h, id + offset, w);
            Object key = kind.key(id + offset);
            model.add(key, w);
            if (model.total.compareTo(MAX) <= 0) {
                // a plain check: formatting the key for a description on every update took a sixth of the time
                long truth = model.weight(key);
                require(h.lastEstimate() >= truth, () -> "lastEstimate of " + key + " is " + h.lastEstimate()
                        + " < " + truth);
            }
        };
    }

    interface Stream {
        void feed(Sink sink, SplittableRandom r, int updates);

        default void feed(HeavyHitters h, Model model, Kind kind, SplittableRandom r, int updates) {
            feed(into(h, model, kind, 0), r, updates);
        }
    }

    static final Stream ZIPF = (sink, r, updates) -> {
        ZipfStream z = new ZipfStream(5000, 1.1, r.nextLong());
        for (int i = 0; i < updates; i++) {
            long id = z.nextRank();
            long w = r.nextInt(10) == 0 ? 0 : 1 + r.nextInt(20);
            sink.add(id, w);
        }
    };

    /** Many distinct items, then a few returning ones, with large weights. */
    static final Stream ADVERSARIAL = (sink, r, updates) -> {
        long budget = Long.MAX_VALUE / 4;
        for (int i = 0; i < updates; i++) {
            long id;
            int mode = r.nextInt(4);
            if (mode == 0) {
                id = 1_000_000 + r.nextInt(1 << 30); // fresh
            } else if (mode == 1) {
                id = r.nextInt(8); // repeated after eviction
            } else {
                id = r.nextInt(200);
            }
            long w;
            int wm = r.nextInt(5);
            if (wm == 0) {
                w = 0;
            } else if (wm == 1) {
                w = r.nextLong(Math.max(1, budget / (updates - i + 1)));
            } else {
                w = 1 + r.nextInt(1000);
            }
            w = Math.min(w, budget);
            budget -= w;
            sink.add(id, w);
        }
    };

    /** One item takes nearly all of Long.MAX_VALUE, the rest are small and distinct. */
    static final Stream HUGE = (sink, r, updates) -> {
        long big = Long.MAX_VALUE - 4L * updates * 1000;
        for (int i = 0; i < updates; i++) {
            long id = i == updates / 2 ? 42 : 100 + r.nextInt(updates);
            long w = id == 42 ? big : r.nextInt(1000);
            sink.add(id, w);
        }
    };

    static List<Function<Kind, HeavyHitters>> makers(long seed) {
        return List.of(
                k -> SpaceSaving.withCapacity(k.keyKind(), 1, seed),
                k -> SpaceSaving.withCapacity(k.keyKind(), 7, seed),
                k -> SpaceSaving.withCapacity(k.keyKind(), 64, seed),
                k -> SpaceSaving.withCapacity(k.keyKind(), 200, seed),
                k -> CountMinHeap.create(k.keyKind(), 1, 31, 3, true, seed),
                k -> CountMinHeap.create(k.keyKind(), 7, 61, 4, true, seed),
                k -> CountMinHeap.create(k.keyKind(), 64, 257, 4, false, seed),
                k -> CountMinHeap.create(k.keyKind(), 200, 1009, 5, true, seed),
                k -> CountMinHeap.over(k.keyKind(), 50,
                        CountMinSketch.withShape(101, 3, seed, RowIndexing.MOD_PRIME, false)),
                k -> CountMinHeap.over(k.keyKind(), 20,
                        CountMinSketch.withShape(64, 2, seed, RowIndexing.FULL_WIDTH, true)));
    }

    @Test
    void singleTrackerGuaranteesHoldAgainstTheModel() {
        for (long seed = 1; seed <= 2; seed++) {
            for (Kind kind : Kind.values()) {
                for (Stream stream : List.of(ZIPF, ADVERSARIAL, HUGE)) {
                    int m = 0;
                    for (Function<Kind, HeavyHitters> make : makers(seed)) {
                        HeavyHitters h = make.apply(kind);
                        Model model = new Model();
                        SplittableRandom r = new SplittableRandom(seed * 1000 + m++);
                        String what = h + " " + kind + " seed " + seed + " stream " + name(stream);
                        assertThat(h.memoryBytes()).as(what + " memory").isEqualTo(h instanceof SpaceSaving
                                ? SpaceSaving.memoryBytesFor(kind.keyKind(), ((SpaceSaving) h).capacity())
                                : CountMinHeap.memoryBytesFor(kind.keyKind(), ((CountMinHeap) h).capacity(),
                                        new CountMinSketch.Size(((CountMinHeap) h).sketch().width(),
                                                ((CountMinHeap) h).sketch().depth())));
                        long before = h.memoryBytes();
                        for (int round = 0; round < (stream == HUGE ? 1 : 4); round++) {
                            stream.feed(h, model, kind, r, 1500);
                            check(what + " round " + round, h, model, kind);
                        }
                        assertThat(h.memoryBytes()).isEqualTo(before);
                        checkImage(what, h, kind, seed);
                    }
                }
            }
        }
    }

    @Test
    void mergedTrackerGuaranteesHoldAgainstTheUnion() {
        for (long seed = 1; seed <= 2; seed++) {
            for (Kind kind : Kind.values()) {
                for (Stream stream : List.of(ZIPF, ADVERSARIAL)) {
                    int m = 0;
                    for (Function<Kind, HeavyHitters> make : makers(seed)) {
                        m++;
                        for (boolean disjoint : new boolean[] {true, false}) {
                            HeavyHitters a = make.apply(kind);
                            HeavyHitters b = make.apply(kind);
                            HeavyHitters c = make.apply(kind);
                            Model ma = new Model();
                            Model mb = new Model();
                            Model mc = new Model();
                            SplittableRandom r = new SplittableRandom(seed * 7919 + m);
                            stream.feed(a, ma, kind, r, 2000);
                            // disjoint: b sees other ids (shifted), overlapping: the same id space
                            stream.feed(into(b, mb, kind, disjoint ? 1L << 40 : 0), r, 2000);
                            stream.feed(c, mc, kind, r, 500);
                            String what = a + " " + kind + " seed " + seed + " disjoint " + disjoint + " " + name(stream);
                            check(what + " a", a, ma, kind);
                            check(what + " b", b, mb, kind);
                            a.merge(b);
                            Model ab = ma.union(mb);
                            check(what + " a+b", a, ab, kind);
                            checkImage(what + " a+b", a, kind, seed);
                            // more updates after the merge, then a second merge and a self merge
                            stream.feed(a, ab, kind, r, 1500);
                            check(what + " a+b then updates", a, ab, kind);
                            c.merge(a);
                            Model abc = mc.union(ab);
                            check(what + " c+(a+b)", c, abc, kind);
                            checkImage(what + " c+(a+b)", c, kind, seed);
                            HeavyHitters read = c instanceof SpaceSaving
                                    ? SpaceSaving.fromByteArray(c.toByteArray())
                                    : CountMinHeap.fromByteArray(c.toByteArray());
                            read.merge(read.copy());
                            if (abc.union(abc).total.compareTo(MAX) <= 0) {
                                check(what + " read self merge", read, abc.union(abc), kind);
                            }
                        }
                    }
                }
            }
        }
    }


    /** Merge trees of many trackers, some read back from images first (so with few slots allocated). */
    @Test
    void mergeTreesKeepTheGuaranteesOfTheUnion() {
        for (long seed = 1; seed <= 2; seed++) {
            for (Kind kind : Kind.values()) {
                int mk = 0;
                for (Function<Kind, HeavyHitters> make : makers(seed)) {
                    mk++;
                    SplittableRandom r = new SplittableRandom(seed * 31 + mk);
                    List<HeavyHitters> trackers = new ArrayList<>();
                    List<Model> models = new ArrayList<>();
                    for (int t = 0; t < 9; t++) {
                        HeavyHitters h = make.apply(kind);
                        Model m = new Model();
                        Stream s = t % 3 == 0 ? ADVERSARIAL : ZIPF;
                        int updates = t == 4 ? 0 : t == 5 ? 3 : 60 + r.nextInt(1200);
                        if (s == ADVERSARIAL) {
                            // each adversarial stream takes at most MAX/4: keep the union below MAX
                            updates = Math.min(updates, 400);
                        }
                        s.feed(into(h, m, kind, r.nextBoolean() ? 0 : (long) t << 40), r, updates);
                        if (r.nextBoolean()) {
                            h = h instanceof SpaceSaving ? SpaceSaving.fromByteArray(h.toByteArray())
                                    : CountMinHeap.fromByteArray(h.toByteArray());
                        }
                        trackers.add(h);
                        models.add(m);
                    }
                    // reduce pairwise in random order, feeding a few updates between merges
                    while (trackers.size() > 1) {
                        int i = r.nextInt(trackers.size());
                        HeavyHitters a = trackers.remove(i);
                        Model ma = models.remove(i);
                        int j = r.nextInt(trackers.size());
                        HeavyHitters b = trackers.remove(j);
                        Model mb = models.remove(j);
                        a.merge(b);
                        Model u = ma.union(mb);
                        String what = a + " " + kind + " seed " + seed + " tree";
                        check(what, a, u, kind);
                        if (r.nextBoolean()) {
                            a = a instanceof SpaceSaving ? SpaceSaving.fromByteArray(a.toByteArray())
                                    : CountMinHeap.fromByteArray(a.toByteArray());
                        }
                        ZIPF.feed(into(a, u, kind, 0), r, r.nextInt(300));
                        check(what + " + updates", a, u, kind);
                        trackers.add(a);
                        models.add(u);
                    }
                }
            }
        }
    }

    /**
     * A budget too small for a CM-heap is refused naming the bytes given and the least that works: the message
     * named what was left after the candidates ("44 bytes" for 100, "-46 bytes" for 10) and a minimum (64) that
     * was not the tracker's.
     */
    @Test
    void countMinHeapTooSmallABudgetNamesTheBytesGivenAndTheLeastThatWorks() {
        long least = SpaceSaving.bytesFor(KeyKind.longs(), 1) + 64; // one candidate, a 2 x 4 sketch
        assertThat(CountMinHeap.withMemory(KeyKind.longs(), least, 1).memoryBytes()).isEqualTo(least);
        for (long bytes : new long[] {10, 100, least - 1}) {
            assertThatThrownBy(() -> CountMinHeap.withMemory(KeyKind.longs(), bytes, 1))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("bytes=" + bytes + " ")
                    .hasMessageContaining("at least " + least);
        }
    }

    /** isComplete(φ) refuses the φ that heavyHitters(φ) refuses (it answered true for φ ≥ 1). */
    @Test
    void countMinHeapIsCompleteRefusesAPhiOutsideTheUnitInterval() {
        CountMinHeap h = CountMinHeap.create(KeyKind.longs(), 4, 101, 4, false, 1);
        h.update(7L, 10);
        for (double phi : new double[] {0, 1, 1.5, -0.1, Double.NaN}) {
            assertThatThrownBy(() -> h.isComplete(phi))
                    .isInstanceOf(IllegalArgumentException.class).hasMessage("phi must be in (0, 1), got " + phi);
        }
        assertThat(h.isComplete(0.5)).isTrue();
    }

    /** N past Long.MAX_VALUE (each item's weight still fits): N saturates, every item's bounds still hold. */
    @Test
    void saturatedTotalKeepsEveryItemsBounds() {
        for (long seed = 1; seed <= 3; seed++) {
            for (Kind kind : Kind.values()) {
                for (Function<Kind, HeavyHitters> make : makers(seed)) {
                    for (boolean merged : new boolean[] {false, true}) {
                        HeavyHitters h = make.apply(kind);
                        HeavyHitters other = make.apply(kind);
                        Model model = new Model();
                        SplittableRandom r = new SplittableRandom(seed);
                        long each = Long.MAX_VALUE / 16;
                        for (int i = 0; i < 400; i++) {
                            long id = r.nextInt(30);
                            long w = r.nextLong(each / 8);
                            if (model.weights.getOrDefault(kind.key(id), BigInteger.ZERO)
                                    .add(BigInteger.valueOf(w)).compareTo(MAX) > 0) {
                                continue;
                            }
                            kind.update(merged && i % 2 == 1 ? other : h, id, w);
                            model.add(kind.key(id), w);
                        }
                        if (merged) {
                            h.merge(other);
                        }
                        String what = h + " " + kind + " merged " + merged;
                        assertThat(model.total.compareTo(MAX)).isPositive();
                        assertThat(h.totalWeight()).as(what).isEqualTo(Long.MAX_VALUE);
                        for (HeavyHitter x : h.topK(Integer.MAX_VALUE)) {
                            long truth = model.weight(kind.reported(x.item()));
                            assertThat(truth).as(() -> what + " " + x).isBetween(x.lowerBound(), x.upperBound());
                        }
                        HeavyHitters read = h instanceof SpaceSaving ? SpaceSaving.fromByteArray(h.toByteArray())
                                : CountMinHeap.fromByteArray(h.toByteArray());
                        assertThat(read.toByteArray()).isEqualTo(h.toByteArray());
                    }
                }
            }
        }
    }
}
