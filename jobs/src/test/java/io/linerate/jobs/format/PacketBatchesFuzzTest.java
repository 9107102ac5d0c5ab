package io.linerate.jobs.format;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.linerate.jobs.fuzz.FuzzTargets;

/**
 * Jazzer fuzz target of the packet batch codec, its Flink serializer and {@link KafkaDecoding} with the dead letters'
 * replay, on the {@link HostileRecords} harness (see {@link FuzzTargets}).
 */
class PacketBatchesFuzzTest {

    @FuzzTest(maxExecutions = FuzzTargets.EXECUTIONS)
    void packetBatches(byte[] data) {
        HostileRecords.packetBatch(data);
    }
}
