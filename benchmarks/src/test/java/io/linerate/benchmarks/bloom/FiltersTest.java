package io.linerate.benchmarks.bloom;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

class FiltersTest {

    static Iterable<String> implementations() {
        return Filters.all();
    }

    @ParameterizedTest
    @MethodSource("implementations")
    void everyAdapterHasNoFalseNegativesAndRoughlyTheTargetRate(String impl) {
        int n = 20_000;
        FilterAdapter f = Filters.create(impl, n, 0.01);
        assertThat(f.name()).isEqualTo(impl);
        long[] members = Keys.members(n, 1);
        for (long key : members) {
            f.put(key);
        }
        for (long key : members) {
            assertThat(f.mightContain(key)).isTrue();
        }
        long[] absent = Keys.nonMembers(100_000, 2);
        long fp = Arrays.stream(absent).filter(f::mightContain).count();
        assertThat(fp / (double) absent.length).isBetween(0.002, 0.03);
        assertThat(f.memoryBytes()).isBetween(n / 8L, n * 8L);
        assertThat(f.memoryBasis()).isNotBlank();
    }

    @Test
    void unknownImplementationIsRejectedWithTheKnownNames() {
        assertThatThrownBy(() -> Filters.create("cuckoo", 10, 0.01))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("blocked");
    }

    @Test
    void guavaMemoryIsTheSizeWriteToWrites() throws IOException {
        com.google.common.hash.BloomFilter<Long> g = com.google.common.hash.BloomFilter.create(
                com.google.common.hash.Funnels.longFunnel(), 100_000, 0.01);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        g.writeTo(out);
        assertThat(new Filters.Guava(100_000, 0.01).memoryBytes()).isEqualTo(out.size());
    }

    @Test
    void nonMembersAreNeverMembersAndQueriesAreHalfMembers() {
        long[] members = Keys.members(10_000, 5);
        long[] queries = Keys.mixedQueries(members, 10_001, 6);
        assertThat(Arrays.stream(members).allMatch(k -> (k & 1) == 0)).isTrue();
        assertThat(Arrays.stream(Keys.nonMembers(10_000, 5)).allMatch(k -> (k & 1) == 1)).isTrue();
        long present = Arrays.stream(queries).filter(k -> (k & 1) == 0).count();
        assertThat(present).isEqualTo(5_000);
        assertThat(Keys.members(100, 9)).isEqualTo(Keys.members(100, 9));
        // shuffled: the members are not all at the front
        assertThat(Arrays.stream(queries, 0, 5_000).filter(k -> (k & 1) == 1).count()).isGreaterThan(2_000);
    }
}
