package io.linerate.jobs.pcap;

import com.code_intelligence.jazzer.junit.FuzzTest;

/**
 * Jazzer fuzz tests of the capture reader ({@link #captureFiles}: classic pcap, pcapng, gzip-compressed) and of the
 * frame decoder ({@link #frames}: every link type), on the {@link HostileCaptures} harness: a capture reads to its
 * end or fails with {@link PcapFormatException} and a message, within an allocation bound; a frame is delivered or
 * counted as skipped, never an exception; generated valid packets and captures round-trip.
 *
 * <p>In the default build these run in Jazzer's fuzzing mode ({@code JAZZER_FUZZ=1}), {@value #EXECUTIONS}
 * executions each, one surefire execution per method; see the jobs pom. Without {@code JAZZER_FUZZ} they run in
 * regression mode: the inputs under {@code src/test/resources/io/linerate/jobs/pcap/CaptureFuzzTestInputs/<method>/}.
 */
class CaptureFuzzTest {

    static final long EXECUTIONS = 10_000;

    @FuzzTest(maxExecutions = EXECUTIONS)
    void captureFiles(byte[] data) {
        HostileCaptures.captureFile(data);
    }

    @FuzzTest(maxExecutions = EXECUTIONS)
    void frames(byte[] data) {
        HostileCaptures.frame(data);
    }
}
