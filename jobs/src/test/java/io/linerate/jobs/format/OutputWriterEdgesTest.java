package io.linerate.jobs.format;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.linerate.flink.countmin.CountMinEstimate;
import io.linerate.flink.rejects.Rejected;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** Output writers at their edges: saturated bounds, self-copies, empty batches, scope writers that misbehave. */
class OutputWriterEdgesTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    /**
     * FORMATS.md, count_min_estimate: "Once N has saturated at 2^63 − 1 ... error_bound is then 2^63 − 1 (no bound)".
     * The writer put the double (double) Long.MAX_VALUE, i.e. 9.223372036854776E18 = 2^63, so a consumer testing
     * error_bound == 9223372036854775807 as documented (Python, jq with big numbers, a BIGINT column) never saw the
     * saturation sentinel.
     */
    @Test
    void aSaturatedErrorBoundIsWrittenAsTheDocumentedSentinel() throws Exception {
        CountMinEstimate<Integer, String> saturated = new CountMinEstimate<>(1, "q", 5,
                (double) Long.MAX_VALUE, Long.MAX_VALUE);
        String json = OutputJson.<Integer, String>countMinEstimates().toJson(saturated);
        JsonNode n = JSON.readTree(json);
        assertThat(n.get("error_bound").isIntegralNumber()).as(json).isTrue();
        assertThat(n.get("error_bound").asLong()).as(json).isEqualTo(Long.MAX_VALUE);
        assertThat(n.get("lower_bound").asLong()).isZero();
        // an ordinary bound is still the double it is
        JsonNode ordinary = JSON.readTree(OutputJson.<Integer, String>countMinEstimates()
                .toJson(new CountMinEstimate<>(1, "q", 42, 13.6, 10_000)));
        assertThat(ordinary.get("error_bound").asDouble()).isEqualTo(13.6);
    }

    /**
     * PacketBatch.copyInto: "Makes {@code to} equal to this". With {@code to == this} it cleared the batch first and
     * then copied its (now zero) size: the batch came back empty. PacketBatchSerializer.copy(from, reuse) goes through
     * it, so copy(b, b) emptied b — silently dropped packets.
     */
    @Test
    void copyingABatchIntoItselfKeepsItsPackets() {
        PacketBatch b = PacketBatchCodecTest.randomBatch(new SplittableRandom(3), 5, 10, 0.5);
        PacketBatch expected = b.copy();
        assertThat(b.copyInto(b)).isSameAs(b).isEqualTo(expected);
        assertThat(b.minTimestamp()).isEqualTo(expected.minTimestamp());
        assertThat(b.maxTimestamp()).isEqualTo(expected.maxTimestamp());
        assertThat(new PacketBatchSerializer().copy(b, b)).isEqualTo(expected);
    }

    /**
     * FORMATS.md: ValueWriter.auto() writes "a PacketBatch as {observation_point, packets, min_timestamp,
     * max_timestamp}", and fields are never removed; an empty batch (which PacketBatchSerializer carries) had no
     * min_timestamp nor max_timestamp at all.
     */
    @Test
    void anEmptyBatchSummaryHasEveryDocumentedField() throws Exception {
        JsonNode record = JSON.readTree(OutputJson.<PacketBatch>rejected()
                .toJson(new Rejected<>(new PacketBatch(3), "late"))).get("record");
        assertThat(record.has("min_timestamp")).as(record.toString()).isTrue();
        assertThat(record.has("max_timestamp")).as(record.toString()).isTrue();
        assertThat(record.get("min_timestamp").isNull()).isTrue();
        assertThat(record.get("packets").asInt()).isZero();
    }

    /**
     * ValueWriter: "Writes one value as ONE JSON value". The flow record is written by hand around its scope
     * writer's output (FlowRecordJson, "byte for byte what the generic Jackson version wrote"), but nothing checked
     * that the writer wrote one value: a writer that writes nothing for a null scope gave {@code "scope":,} (not
     * JSON), and one that wrote two numbers gave {@code "scope":12} (another value), where the Jackson writers of
     * the other records refuse both.
     */
    @Test
    void aScopeWriterThatWritesNoneOrTwoValuesFailsInsteadOfWritingBrokenJson() {
        ValueWriter<Integer> nothingForNull = (v, g) -> {
            if (v != null) {
                g.writeNumber(v);
            }
        };
        ValueWriter<Integer> two = (v, g) -> {
            g.writeNumber(1);
            g.writeNumber(2);
        };
        io.linerate.flink.flowmeter.MeteredFlow<Integer> f = OutputJsonTest.flow();
        f.scope = null;
        Throwable none = org.assertj.core.api.Assertions.catchThrowable(() -> OutputJson.flows(nothingForNull).toJson(f));
        assertThat(none).as("no value").isNotNull();
        f.scope = 7;
        Throwable twice = org.assertj.core.api.Assertions.catchThrowable(() -> OutputJson.flows(two).toJson(f));
        assertThat(twice).as("two values").isNotNull();
        // the Jackson-written records refuse them too, and a well-behaved writer still works after a failure
        assertThat(org.assertj.core.api.Assertions.catchThrowable(() -> OutputJson.<Integer>heavyHitterReports(two)
                .toJson(OutputJsonTest.report()))).isNotNull();
        JsonSerialization<io.linerate.flink.flowmeter.MeteredFlow<Integer>> s = OutputJson.flows(nothingForNull);
        f.scope = null;
        org.assertj.core.api.Assertions.catchThrowable(() -> s.toJson(f));
        f.scope = 7;
        assertThat(s.toJson(f)).isEqualTo(OutputJson.<Integer>flows().toJson(f));
    }
}
