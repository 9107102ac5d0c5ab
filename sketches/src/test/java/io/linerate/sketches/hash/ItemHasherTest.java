package io.linerate.sketches.hash;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HashSet;
import java.util.Set;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class ItemHasherTest {

    private static final long SEED_A = 0x1234_5678_9ABC_DEF0L;
    private static final long SEED_B = 0x0FED_CBA9_8765_4321L;

    @Test
    void sameSeedGivesSameHashesAcrossInstancesAndTypes() {
        ItemHasher a = ItemHasher.seeded(SEED_A);
        ItemHasher b = ItemHasher.seeded(SEED_A);
        assertThat(a).isEqualTo(b).hasSameHashCodeAs(b);
        assertThat(a.seed()).isEqualTo(SEED_A);
        SplittableRandom rnd = new SplittableRandom(1);
        for (int i = 0; i < 1000; i++) {
            long item = rnd.nextLong();
            assertThat(a.hash(item)).isEqualTo(b.hash(item));
            byte[] bytes = randomBytes(rnd, rnd.nextInt(100));
            assertThat(a.hash(bytes)).isEqualTo(b.hash(bytes.clone()));
            String text = "item-" + rnd.nextLong();
            assertThat(a.hash(text)).isEqualTo(b.hash(new StringBuilder(text)));
            FiveTuple t = FiveTuple.ipv4(rnd.nextInt(), rnd.nextInt(), rnd.nextInt(65536), rnd.nextInt(65536),
                    rnd.nextInt(256));
            assertThat(a.hash(t)).isEqualTo(b.hash(t));
        }
    }

    @Test
    void defaultSeedIsTheDefaultHasher() {
        assertThat(ItemHasher.seeded(ItemHasher.DEFAULT_SEED)).isSameAs(ItemHasher.defaultHasher());
        assertThat(ItemHasher.defaultHasher().seed()).isEqualTo(ItemHasher.DEFAULT_SEED);
        assertThat(ItemHasher.seeded(SEED_A)).isNotEqualTo(ItemHasher.defaultHasher());
    }

    /** Two seeds agree on an item with probability 2^-64 for a good seeded hash, so every item must differ. */
    @Test
    void differentSeedsGiveDifferentHashes() {
        ItemHasher a = ItemHasher.seeded(SEED_A);
        ItemHasher b = ItemHasher.seeded(SEED_B);
        ItemHasher c = ItemHasher.seeded(SEED_A + 1);
        SplittableRandom rnd = new SplittableRandom(2);
        for (int i = 0; i < 10_000; i++) {
            long item = i < 5000 ? i : rnd.nextLong();
            assertThat(a.hash(item)).isNotEqualTo(b.hash(item)).isNotEqualTo(c.hash(item));
            String s = Long.toString(item);
            assertThat(a.hash(s)).isNotEqualTo(b.hash(s)).isNotEqualTo(c.hash(s));
            byte[] bytes = s.getBytes(StandardCharsets.UTF_8);
            assertThat(a.hash(bytes)).isNotEqualTo(b.hash(bytes));
        }
    }

    /** Over 200,000 distinct longs no two 64-bit hashes collide (expected collisions 2·10^10/2^65 ≈ 10^-9). */
    @Test
    void noCollisionsAmongManyItems() {
        ItemHasher h = ItemHasher.seeded(SEED_A);
        Set<Long> seen = new HashSet<>();
        Set<Long> seenH2 = new HashSet<>();
        for (long i = 0; i < 200_000; i++) {
            long h1 = h.hash(i);
            assertThat(seen.add(h1)).as("collision at %d", i).isTrue();
            assertThat(seenH2.add(ItemHasher.h2(h1))).isTrue();
        }
    }

    @Test
    void byteSliceHashEqualsHashOfCopiedSlice() {
        ItemHasher h = ItemHasher.seeded(SEED_B);
        SplittableRandom rnd = new SplittableRandom(3);
        for (int i = 0; i < 5000; i++) {
            byte[] buffer = randomBytes(rnd, 1 + rnd.nextInt(300));
            int offset = rnd.nextInt(buffer.length + 1);
            int length = rnd.nextInt(buffer.length - offset + 1);
            byte[] copy = Arrays.copyOfRange(buffer, offset, offset + length);
            assertThat(h.hash(buffer, offset, length)).as("offset %d length %d", offset, length)
                    .isEqualTo(h.hash(copy))
                    .isEqualTo(h.hash(copy, 0, copy.length));
        }
        byte[] whole = randomBytes(rnd, 64);
        assertThat(h.hash(whole)).isEqualTo(h.hash(whole, 0, whole.length));
    }

    @Test
    void byteSliceOutOfBoundsIsRejected() {
        ItemHasher h = ItemHasher.defaultHasher();
        byte[] b = new byte[10];
        assertThatThrownBy(() -> h.hash(b, -1, 2)).isInstanceOf(IndexOutOfBoundsException.class);
        assertThatThrownBy(() -> h.hash(b, 5, 6)).isInstanceOf(IndexOutOfBoundsException.class);
        assertThatThrownBy(() -> h.hash(b, 0, -1)).isInstanceOf(IndexOutOfBoundsException.class);
        assertThat(h.hash(b, 10, 0)).isEqualTo(h.hash(new byte[0]));
    }

    @Test
    void fiveTupleHashEqualsPrimitiveHotPathAndDependsOnEveryField() {
        ItemHasher h = ItemHasher.seeded(SEED_A);
        SplittableRandom rnd = new SplittableRandom(4);
        for (int i = 0; i < 2000; i++) {
            int src = rnd.nextInt();
            int dst = rnd.nextInt();
            int sp = rnd.nextInt(65536);
            int dp = rnd.nextInt(65536);
            int proto = rnd.nextInt(256);
            FiveTuple v4 = FiveTuple.ipv4(src, dst, sp, dp, proto);
            long hv4 = h.hash(v4);
            assertThat(hv4).isEqualTo(h.hashIpv4(src, dst, sp, dp, proto));
            if (src != dst) {
                // direction matters: a flow and its reverse are different keys
                assertThat(h.hash(FiveTuple.ipv4(dst, src, sp, dp, proto))).isNotEqualTo(hv4);
            }
            assertThat(h.hash(FiveTuple.ipv4(src ^ 1, dst, sp, dp, proto))).isNotEqualTo(hv4);
            assertThat(h.hash(FiveTuple.ipv4(src, dst ^ 1, sp, dp, proto))).isNotEqualTo(hv4);
            assertThat(h.hash(FiveTuple.ipv4(src, dst, sp ^ 1, dp, proto))).isNotEqualTo(hv4);
            assertThat(h.hash(FiveTuple.ipv4(src, dst, sp, dp ^ 1, proto))).isNotEqualTo(hv4);
            assertThat(h.hash(FiveTuple.ipv4(src, dst, sp, dp, proto ^ 1))).isNotEqualTo(hv4);

            long sh = rnd.nextLong();
            long sl = rnd.nextLong();
            long dh = rnd.nextLong();
            long dl = rnd.nextLong();
            FiveTuple v6 = FiveTuple.ipv6(sh, sl, dh, dl, sp, dp, proto);
            long hv6 = h.hash(v6);
            assertThat(hv6).isEqualTo(h.hashIpv6(sh, sl, dh, dl, sp, dp, proto));
            assertThat(h.hash(FiveTuple.ipv6(sh ^ 1, sl, dh, dl, sp, dp, proto))).isNotEqualTo(hv6);
            assertThat(h.hash(FiveTuple.ipv6(sh, sl ^ 1, dh, dl, sp, dp, proto))).isNotEqualTo(hv6);
            assertThat(h.hash(FiveTuple.ipv6(sh, sl, dh ^ 1, dl, sp, dp, proto))).isNotEqualTo(hv6);
            assertThat(h.hash(FiveTuple.ipv6(sh, sl, dh, dl ^ 1, sp, dp, proto))).isNotEqualTo(hv6);
            assertThat(h.hash(FiveTuple.ipv6(sh, sl, dh, dl, sp, dp, proto ^ 1))).isNotEqualTo(hv6);
        }
        // The IP version is part of the key: ::a.b.c.d style values with zero high bits are not IPv4 tuples.
        FiveTuple v4 = FiveTuple.ipv4(0x0A000001, 0x0A000002, 1, 2, 6);
        FiveTuple v6 = FiveTuple.ipv6(0, 0x0A000001L, 0, 0x0A000002L, 1, 2, 6);
        assertThat(h.hash(v4)).isNotEqualTo(h.hash(v6));
    }

    /**
     * h2 is a bijection of h1 (SplitMix64 finalizer plus an odd increment) and decorrelates the halves: over
     * 70,000 sequential keys the pair (h1 mod 7, h2 mod 7), reduced with {@link DoubleHashing#reduce}, is uniform
     * on the 49 cells. χ² with 48 df; critical value at z = 4 by Wilson–Hilferty, df(1 − 2/(9df) + 4√(2/(9df)))³.
     */
    @Test
    void reducedHalvesAreJointlyUniform() {
        ItemHasher h = ItemHasher.seeded(SEED_A);
        int m = 7;
        long[] cells = new long[m * m];
        int items = 70_000;
        for (long i = 0; i < items; i++) {
            long h1 = h.hash(i);
            long h2 = ItemHasher.h2(h1);
            cells[(int) (DoubleHashing.reduce(h1, m) * m + DoubleHashing.reduce(h2, m))]++;
        }
        double expected = (double) items / cells.length;
        double chi2 = 0;
        for (long c : cells) {
            chi2 += (c - expected) * (c - expected) / expected;
        }
        int df = cells.length - 1;
        double a = 2.0 / (9 * df);
        double critical = df * Math.pow(1 - a + 4 * Math.sqrt(a), 3);
        assertThat(chi2).isLessThan(critical);
    }

    @Test
    void h2IsAFixedFunctionOfH1() {
        SplittableRandom rnd = new SplittableRandom(5);
        for (int i = 0; i < 1000; i++) {
            long h1 = rnd.nextLong();
            assertThat(ItemHasher.h2(h1)).isEqualTo(ItemHasher.h2(h1)).isNotEqualTo(h1);
        }
    }

    static byte[] randomBytes(SplittableRandom rnd, int length) {
        byte[] b = new byte[length];
        for (int i = 0; i < length; i++) {
            b[i] = (byte) rnd.nextInt(256);
        }
        return b;
    }
}
