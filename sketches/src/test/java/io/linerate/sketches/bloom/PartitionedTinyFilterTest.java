package io.linerate.sketches.bloom;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * create's search sizes tiny filters (a few bits per partition) with the Poisson fill
 * q = 1 − e<sup>−n/p</sup>, which underestimates the fill 1 − (1 − 1/p)<sup>n</sup> when p is small. create(1, 0.4)
 * gave k = 1, p = 2: one item sets one of 2 bits, so a query is a false positive with probability 1/2, not 0.39.
 */
class PartitionedTinyFilterTest {

    @Test
    void aOneItemFilterMeetsItsTarget() {
        PartitionedBloomFilter f = PartitionedBloomFilter.create(1, 0.4, 7);
        f.put(12345L);
        SplittableRandom rnd = new SplittableRandom(3);
        int queries = 200_000;
        int positives = 0;
        for (int i = 0; i < queries; i++) {
            positives += f.mightContain(rnd.nextLong()) ? 1 : 0;
        }
        // expected 0.5 with k = 1, p = 2; sigma ≈ 0.0011
        assertThat((double) positives / queries).as("measured rate of %s", f).isLessThanOrEqualTo(0.41);
    }

    /** The exact rate of the scheme (class comment): 1 − Σ_{j=1..k} (−1)^{j+1} C(k,j) (1 − (1 + j(p−1))/p²)^n. */
    static double exact(long n, int k, long p) {
        double sum = 0;
        double c = 1;
        for (int j = 1; j <= k; j++) {
            c = c * (k - j + 1) / j;
            double term = c * Math.pow(1 - (1 + j * (p - 1.0)) / ((double) p * p), n);
            sum += (j % 2 == 1) ? term : -term;
        }
        return 1 - sum;
    }

    @Test
    void smallFiltersMeetTheirTargetByTheExactRate() {
        long[][] cases = {{1, 40}, {2, 50}, {2, 25}, {1, 30}, {2, 30}, {9, 50}};
        for (long[] c : cases) {
            double fpp = c[1] / 100.0;
            PartitionedBloomFilter f = PartitionedBloomFilter.create(c[0], fpp, 7);
            assertThat(exact(c[0], f.hashCount(), f.partitionBits()))
                    .as("n=%d fpp=%s: k=%d p=%d", c[0], fpp, f.hashCount(), f.partitionBits())
                    .isLessThanOrEqualTo(fpp);
        }
    }
}
