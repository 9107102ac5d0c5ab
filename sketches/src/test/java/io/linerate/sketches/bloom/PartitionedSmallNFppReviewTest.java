package io.linerate.sketches.bloom;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * NOT FIXED (reported): PartitionedBloomFilter.create(n, fpp) is "sized as the standard filter", but the prime
 * partition scheme adds ≈ n/p² = k²/(c²n) to the rate (an item shares all k cells with a query whose (h1, h2) mod p
 * equals its own), which expectedFpp() does not see. At n = 1000, fpp = 1e-6 (k = 20, p = 1439) that is ≈ 4.8e-4:
 * measured 4.7e-4, while expectedFpp() says 1.0e-6; the standard filter of the same size measures ≈ 1e-6.
 */
class PartitionedSmallNFppReviewTest {

    @Test
    void createMeetsItsTargetAndExpectedFppTracksTheMeasuredRateAtSmallN() {
        long n = 1000;
        double fpp = 1e-6;
        PartitionedBloomFilter f = PartitionedBloomFilter.create(n, fpp, 7);
        SplittableRandom rnd = new SplittableRandom(1);
        for (long i = 0; i < n; i++) {
            f.put(rnd.nextLong());
        }
        long queries = 2_000_000;
        long positives = 0;
        for (long i = 0; i < queries; i++) {
            positives += f.mightContain(rnd.nextLong()) ? 1 : 0;
        }
        double measured = (double) positives / queries;
        assertThat(f.expectedFpp()).as("expectedFpp").isLessThan(1.1 * fpp);
        assertThat(measured).as("measured rate (%d of %d) vs the target %s and expectedFpp %s", positives, queries,
                fpp, f.expectedFpp()).isLessThan(10 * fpp);
    }
}
