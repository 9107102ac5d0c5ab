package io.linerate.jobs.pcap;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.linerate.jobs.fuzz.FuzzTargets;

/**
 * Jazzer fuzz target of the capture reader (classic pcap, pcapng, either gzip-compressed), on the
 * {@link HostileCaptures} harness (see {@link FuzzTargets}).
 */
class CaptureFilesFuzzTest {

    @FuzzTest(maxExecutions = FuzzTargets.EXECUTIONS)
    void captureFiles(byte[] data) {
        HostileCaptures.captureFile(data);
    }
}
