package io.linerate.sketches.image;

import com.code_intelligence.jazzer.junit.FuzzTest;

/** Jazzer fuzz target of the split-block Bloom filter's image reader (see {@link ImageFuzzTargets}). */
class SplitBlockBloomImageFuzzTest {

    @FuzzTest(maxExecutions = ImageFuzzTargets.EXECUTIONS)
    void splitBlockBloom(byte[] data) {
        ImageFuzzTargets.fuzz(Family.SPLIT_BLOCK_BLOOM, data);
    }
}
