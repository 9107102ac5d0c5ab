package io.linerate.jobs.format;

import com.code_intelligence.jazzer.junit.FuzzTest;

/**
 * Jazzer fuzz tests of the decoders of Kafka record bytes, on the {@link HostileRecords} harness: the packet batch
 * codec, its Flink serializer and {@link KafkaDecoding} with the dead letters' replay ({@link #packetBatches}); the
 * JSON event format, the dedup job's decoder of whole records and {@link DeadLetterReplay} on arbitrary bytes
 * ({@link #jsonEvents}). Each decodes or fails with its documented exception and a message, within an allocation
 * bound; generated valid values round-trip.
 *
 * <p>In the default build these run in Jazzer's fuzzing mode ({@code JAZZER_FUZZ=1}), {@value #EXECUTIONS}
 * executions each, one surefire execution per method (Jazzer fuzzes a single test per JVM); see the jobs pom.
 * Without {@code JAZZER_FUZZ} (the plain {@code test} execution, or an IDE) they run in regression mode: the inputs
 * under {@code src/test/resources/io/linerate/jobs/format/RecordFuzzTestInputs/<method>/}.
 */
class RecordFuzzTest {

    static final long EXECUTIONS = 10_000;

    @FuzzTest(maxExecutions = EXECUTIONS)
    void packetBatches(byte[] data) {
        HostileRecords.packetBatch(data);
    }

    @FuzzTest(maxExecutions = EXECUTIONS)
    void jsonEvents(byte[] data) {
        HostileRecords.jsonEvent(data);
    }
}
