package io.linerate.sketches.image;

import com.code_intelligence.jazzer.junit.FuzzTest;

/** Jazzer fuzz target of the partitioned Bloom filter's image reader (see {@link ImageFuzzTargets}). */
class PartitionedBloomImageFuzzTest {

    @FuzzTest(maxExecutions = ImageFuzzTargets.EXECUTIONS)
    void partitionedBloom(byte[] data) {
        ImageFuzzTargets.fuzz(Family.PARTITIONED_BLOOM, data);
    }
}
