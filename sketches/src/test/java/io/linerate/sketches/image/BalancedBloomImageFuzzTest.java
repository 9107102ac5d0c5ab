package io.linerate.sketches.image;

import com.code_intelligence.jazzer.junit.FuzzTest;

/** Jazzer fuzz target of the balanced Bloom filter's image reader (see {@link ImageFuzzTargets}). */
class BalancedBloomImageFuzzTest {

    @FuzzTest(maxExecutions = ImageFuzzTargets.EXECUTIONS)
    void balancedBloom(byte[] data) {
        ImageFuzzTargets.fuzz(Family.BALANCED_BLOOM, data);
    }
}
