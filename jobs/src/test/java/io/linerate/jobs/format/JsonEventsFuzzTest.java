package io.linerate.jobs.format;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.linerate.jobs.fuzz.FuzzTargets;

/**
 * Jazzer fuzz target of the JSON event format, the dedup job's decoder of whole records and {@link DeadLetterReplay}
 * on arbitrary bytes, on the {@link HostileRecords} harness (see {@link FuzzTargets}).
 */
class JsonEventsFuzzTest {

    @FuzzTest(maxExecutions = FuzzTargets.EXECUTIONS)
    void jsonEvents(byte[] data) {
        HostileRecords.jsonEvent(data);
    }
}
