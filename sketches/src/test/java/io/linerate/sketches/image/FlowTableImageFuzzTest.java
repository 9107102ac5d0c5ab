package io.linerate.sketches.image;

import com.code_intelligence.jazzer.junit.FuzzTest;

/** Jazzer fuzz target of the flow table's image reader (see {@link ImageFuzzTargets}). */
class FlowTableImageFuzzTest {

    @FuzzTest(maxExecutions = ImageFuzzTargets.EXECUTIONS)
    void flowTable(byte[] data) {
        ImageFuzzTargets.fuzz(Family.FLOW_TABLE, data);
    }
}
