package io.linerate.sketches.bloom;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.linerate.sketches.hash.Probing;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

/** Bad arguments fail with an IllegalArgumentException that names the parameter and its limit. */
class ArgumentValidationTest {

    static final String MAX_BITS = Long.toString(BloomFilter.MAX_BITS);

    @ParameterizedTest
    @EnumSource(Variant.class)
    void nonPositiveExpectedItemsAreRejected(Variant v) {
        for (long n : new long[] {0, -1, Long.MIN_VALUE}) {
            assertThatThrownBy(() -> v.create(n, 0.01, 1))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("expectedItems").hasMessageContaining("[1, ").hasMessageContaining(Long.toString(n));
        }
    }

    @ParameterizedTest
    @EnumSource(Variant.class)
    void fppOutsideTheOpenUnitIntervalIsRejected(Variant v) {
        for (double fpp : new double[] {0, 1, Double.NaN, -0.01, 1.5, Double.POSITIVE_INFINITY, -0.0}) {
            assertThatThrownBy(() -> v.create(1000, fpp, 1))
                    .as("fpp = %s", fpp)
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("fpp").hasMessageContaining("(0, 1)").hasMessageContaining(Double.toString(fpp));
        }
        // the smallest positive fpp is legal but needs more than MAX_BITS bits for 10^8 items
        assertThatThrownBy(() -> v.create(100_000_000, Double.MIN_VALUE, 1)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("above the limit of " + MAX_BITS);
        assertThatCode(() -> v.create(1000, Math.nextDown(1.0), 1)).doesNotThrowAnyException();
    }

    @Test
    void tooManyItemsForTheBitLimitAreRejected() {
        long n = Integer.MAX_VALUE * 16L;
        for (Variant v : Variant.values()) {
            assertThatThrownBy(() -> v.create(n, 1e-9, 1)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining(MAX_BITS);
            assertThatThrownBy(() -> v.create(n + 1, 0.5, 1)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("expectedItems").hasMessageContaining(Long.toString(n));
        }
    }

    /**
     * The bit count a too-large sizing reports is the real need, above MAX_BITS: at a tiny fpp the blocked
     * layouts' block count exceeds a long, and the message used to show it wrapped ("needs -512 bits"). (A
     * counting filter reports its counter limit instead.)
     */
    @ParameterizedTest
    @EnumSource(value = Variant.class, names = {"STANDARD", "PARTITIONED", "BLOCKED", "SPLIT_BLOCK"})
    void theReportedBitCountOfAnOversizedFilterIsItsRealNeed(Variant v) {
        for (double fpp : new double[] {1e-300, Double.MIN_VALUE, 1e-9}) {
            for (long n : new long[] {34_000_000_000L, 5_000_000_000L}) {
                Throwable thrown = org.assertj.core.api.Assertions.catchThrowable(() -> v.create(n, fpp, 1));
                org.assertj.core.api.Assertions.assertThat(thrown).as("%s n=%d fpp=%s", v, n, fpp)
                        .isInstanceOf(IllegalArgumentException.class)
                        .hasMessageStartingWith("expectedItems=" + n + " at fpp=" + fpp + " needs ")
                        .hasMessageEndingWith(" bits, above the limit of " + MAX_BITS + " bits");
                String need = thrown.getMessage().replaceFirst(".* needs (?:more than )?(\\S+) bits,.*", "$1");
                org.assertj.core.api.Assertions.assertThat(Double.parseDouble(need)).as("%s n=%d fpp=%s", v, n, fpp)
                        .isGreaterThan(BloomFilter.MAX_BITS)
                        // at least the information-theoretic need of n items at fpp, n·log2(1/fpp)
                        .isGreaterThanOrEqualTo(n * -Math.log(fpp) / Math.log(2));
                if (fpp == 1e-300 && (v == Variant.BLOCKED || v == Variant.SPLIT_BLOCK)) {
                    // the model's load per block is below the search's floor: the count is a lower bound
                    org.assertj.core.api.Assertions.assertThat(thrown).hasMessageContaining("needs more than ");
                }
            }
        }
    }

    @ParameterizedTest
    @ValueSource(longs = {0, -1, -64, Long.MIN_VALUE, BloomFilter.MAX_BITS + 1, Long.MAX_VALUE})
    void bitCountsOutsideOneToMaxBitsAreRejected(long bits) {
        String value = Long.toString(bits);
        assertThatThrownBy(() -> StandardBloomFilter.withBits(bits, 3, 1)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("bits").hasMessageContaining(MAX_BITS).hasMessageContaining(value);
        assertThatThrownBy(() -> StandardBloomFilter.withBits(bits, 3, 1, Probing.DOUBLE))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining(MAX_BITS);
        assertThatThrownBy(() -> PartitionedBloomFilter.withBits(bits, 3, 1)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("bits").hasMessageContaining(MAX_BITS).hasMessageContaining(value);
        assertThatThrownBy(() -> BlockedBloomFilter.withBits(bits, 3, 1, 512)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("bits").hasMessageContaining(MAX_BITS).hasMessageContaining(value);
        assertThatThrownBy(() -> SplitBlockBloomFilter.withBits(bits, 1)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("bits").hasMessageContaining(MAX_BITS).hasMessageContaining(value);
        assertThatThrownBy(() -> CountingBloomFilter.withCounters(bits, 3, 4, 1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("counters").hasMessageContaining(Long.toString(BloomFilter.MAX_BITS / 4))
                .hasMessageContaining(value);
    }

    @Test
    void roundingUpBeyondMaxBitsIsRejectedWithoutAllocating() {
        // ⌈MAX_BITS/3⌉ rounded up to a prime, times 3, exceeds MAX_BITS
        assertThatThrownBy(() -> PartitionedBloomFilter.withBits(BloomFilter.MAX_BITS, 3, 1))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("above the limit of " + MAX_BITS);
        // 2^36 / 4 counters of 4 bits is the limit; one more is not
        assertThatThrownBy(() -> CountingBloomFilter.withCounters(BloomFilter.MAX_BITS / 4 + 1, 3, 4, 1))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("counters");
        assertThatThrownBy(() -> CountingBloomFilter.withCounters(BloomFilter.MAX_BITS / 16 + 1, 3, 16, 1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(Long.toString(BloomFilter.MAX_BITS / 16));
    }

    @ParameterizedTest
    @ValueSource(ints = {0, -1, BloomFilter.MAX_HASH_COUNT + 1, Integer.MAX_VALUE, Integer.MIN_VALUE})
    void hashCountOutsideOneToMaxIsRejected(int k) {
        String limit = "[1, " + BloomFilter.MAX_HASH_COUNT + "]";
        String value = Integer.toString(k);
        assertThatThrownBy(() -> StandardBloomFilter.withBits(1000, k, 1)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("hashCount").hasMessageContaining(limit).hasMessageContaining(value);
        assertThatThrownBy(() -> PartitionedBloomFilter.withBits(1000, k, 1)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("hashCount").hasMessageContaining(limit).hasMessageContaining(value);
        assertThatThrownBy(() -> BlockedBloomFilter.withBits(1000, k, 1, 4096)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("hashCount").hasMessageContaining(limit).hasMessageContaining(value);
        assertThatThrownBy(() -> CountingBloomFilter.withCounters(1000, k, 4, 1)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("hashCount").hasMessageContaining(limit).hasMessageContaining(value);
    }

    @Test
    void hashCountAtTheLimitIsAccepted() {
        assertThatCode(() -> StandardBloomFilter.withBits(1000, BloomFilter.MAX_HASH_COUNT, 1)).doesNotThrowAnyException();
        assertThatCode(() -> PartitionedBloomFilter.withBits(1000, BloomFilter.MAX_HASH_COUNT, 1)).doesNotThrowAnyException();
        assertThatCode(() -> CountingBloomFilter.withCounters(1000, BloomFilter.MAX_HASH_COUNT, 4, 1)).doesNotThrowAnyException();
        assertThatCode(() -> StandardBloomFilter.withBits(1, 1, 1)).doesNotThrowAnyException();
    }

    @ParameterizedTest
    @ValueSource(ints = {0, -512, 1, 32, 100, 500, 513, 768, 8192, Integer.MIN_VALUE})
    void blockBitsMustBeAPowerOfTwoInRange(int blockBits) {
        assertThatThrownBy(() -> BlockedBloomFilter.withBits(100_000, 4, 1, blockBits))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("blockBits").hasMessageContaining("power of two")
                .hasMessageContaining("[64, 4096]").hasMessageContaining(Integer.toString(blockBits));
        assertThatThrownBy(() -> BlockedBloomFilter.create(1000, 0.01, 1, blockBits))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("blockBits");
    }

    @Test
    void blockedHashCountAboveBlockBitsIsRejected() {
        assertThatThrownBy(() -> BlockedBloomFilter.withBits(100_000, 65, 1, 64))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("hashCount").hasMessageContaining("blockBits=64").hasMessageContaining("65");
        assertThatCode(() -> BlockedBloomFilter.withBits(100_000, 64, 1, 64)).doesNotThrowAnyException();
    }

    @ParameterizedTest
    @ValueSource(ints = {3, 0, 1, -4, 5, 32, 64})
    void counterBitsMustBe2_4_8or16(int w) {
        assertThatThrownBy(() -> CountingBloomFilter.withCounters(1000, 3, w, 1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("counterBits").hasMessageContaining("2, 4, 8 or 16")
                .hasMessageContaining(Integer.toString(w));
    }

    @org.junit.jupiter.api.Test
    void splitBlockModelRejectsLoadsOutsideTheBlock() {
        for (double bad : new double[] {-1, Double.NaN, 513, 1e12, Double.POSITIVE_INFINITY}) {
            org.assertj.core.api.Assertions.assertThatThrownBy(() -> SplitBlockBloomFilter.falsePositiveProbability(bad))
                    .as("%s", bad).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageStartingWith("itemsPerBlock must be in [0, 512]");
        }
    }
}
