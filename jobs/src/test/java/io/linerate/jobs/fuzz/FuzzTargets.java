package io.linerate.jobs.fuzz;

/**
 * The Jazzer fuzz targets of the decoders of untrusted bytes, one class per target ({@code *FuzzTest}):
 * {@code format.PacketBatchesFuzzTest} and {@code format.JsonEventsFuzzTest} (Kafka records and dead letters, on the
 * {@code HostileRecords} harness), {@code pcap.CaptureFilesFuzzTest} and {@code pcap.FramesFuzzTest} (capture files
 * and frames, on the {@code HostileCaptures} harness).
 *
 * <p>In the default build they run in Jazzer's fuzzing mode ({@code JAZZER_FUZZ=1}), {@value #EXECUTIONS}
 * executions each, in the surefire execution {@code fuzz} of the jobs pom. Jazzer fuzzes a single test per JVM, and
 * surefire starts a JVM per test class, so each target is a class of its own; two of them run side by side. Without
 * {@code JAZZER_FUZZ} (the plain {@code test} execution, or an IDE) they run in regression mode: the inputs under
 * {@code src/test/resources/<package path>/<Class>Inputs/<method>/}.
 */
public final class FuzzTargets {

    /** Inputs per target in fuzzing mode. */
    public static final long EXECUTIONS = 10_000;

    private FuzzTargets() {
    }
}
