package io.linerate.jobs.pcap;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.linerate.jobs.fuzz.FuzzTargets;

/**
 * Jazzer fuzz target of the frame decoder (every link type), on the {@link HostileCaptures} harness (see
 * {@link FuzzTargets}).
 */
class FramesFuzzTest {

    @FuzzTest(maxExecutions = FuzzTargets.EXECUTIONS)
    void frames(byte[] data) {
        HostileCaptures.frame(data);
    }
}
