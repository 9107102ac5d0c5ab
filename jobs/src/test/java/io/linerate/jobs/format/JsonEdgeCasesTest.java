package io.linerate.jobs.format;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.linerate.flink.countmin.CountMinEstimate;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** Edge cases of the JSON record formats against docs/FORMATS.md: huge numbers, big numbers out, reasons as sent, read limits. */
class JsonEdgeCasesTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    /**
     * BytesDecoder: "Throws MalformedRecordException — and nothing else — for bad input". A JSON number whose exponent
     * does not fit an int (valid JSON: RFC 8259 bounds no exponent), even in a field the format never reads, made
     * Jackson's BigDecimal conversion throw a NumberFormatException straight out of decode.
     */
    @Test
    void aNumberWithAHugeExponentIsMalformedNotAnUncheckedException() {
        JsonEventFormat f = JsonEventFormat.builder().keyField("id").weightField("w").build();
        // exponents no BigDecimal scale holds on any JDK (an int scale: 1e2147483648 is 1 at scale -2^31, which
        // JDK 17 refuses and JDK 25 accepts; see theExponentAtTheEdgeOfAnIntIsMalformedWhereverItIsRead)
        for (String value : new String[] {
                "{\"id\":\"a\",\"w\":1,\"x\":1e2147483649}",
                "{\"id\":\"a\",\"w\":1,\"x\":1e-2147483649}",
                "{\"id\":\"a\",\"w\":1e99999999999}",
                "{\"id\":1E2147483649}"}) {
            assertThat(malformedReason(f, value)).as(value).startsWith("bad JSON: ");
        }
        // and through the Kafka deserializer: a malformed record, not a "decoder failed" bug report
        Decoded<Event> d = KafkaDecoding.events(f).decode(
                new org.apache.kafka.clients.consumer.ConsumerRecord<>("events", 0, 5L, null,
                        utf8("{\"id\":\"a\",\"w\":1,\"x\":1e2147483649}")));
        assertThat(d.isDead()).isTrue();
        assertThat(d.deadLetter.reason).startsWith("bad JSON: ").doesNotContain("decoder failed");
    }

    /**
     * 1e2147483648 is a BigDecimal on some JDKs (25: unscaled 1, scale -2^31) and a NumberFormatException on others
     * (17). In a field the format reads it is malformed either way, and quickly: a key must be a string or an
     * integer, a weight an integer, and a timestamp of 10^2147483648 s is out of range (checked from its digits,
     * never by writing it out).
     */
    @Test
    void theExponentAtTheEdgeOfAnIntIsMalformedWhereverItIsRead() {
        JsonEventFormat f = JsonEventFormat.builder().keyField("id").weightField("w").timestampField("t")
                .epochUnit(JsonEventFormat.EpochUnit.SECONDS).build();
        for (String value : new String[] {
                "{\"id\":1E2147483648,\"w\":1,\"t\":1}",
                "{\"id\":\"a\",\"w\":1e2147483648,\"t\":1}",
                "{\"id\":\"a\",\"w\":1,\"t\":1e2147483648}",
                "{\"id\":\"a\",\"w\":1,\"t\":-1e2147483648}"}) {
            assertThat(malformedReason(f, value)).as(value).hasSizeLessThan(400);
        }
    }

    /** The reason {@code f} gives for {@code value}, which it must refuse with a {@link MalformedRecordException}. */
    private static String malformedReason(JsonEventFormat f, String value) {
        Throwable t = catchThrowable(() -> f.decode(utf8(value)));
        assertThat(t).as(value).isInstanceOf(MalformedRecordException.class);
        return ((MalformedRecordException) t).reason();
    }

    /**
     * FORMATS.md: ValueWriter.auto() writes "integers and finite floats as JSON numbers" (ValueWriter: "integral
     * numbers, floating-point numbers ... as JSON numbers"); a BigInteger or BigDecimal scope or query came out as a
     * JSON string.
     */
    @Test
    void bigIntegerAndBigDecimalAreJsonNumbers() throws Exception {
        JsonNode n = JSON.readTree(OutputJson.countMinEstimates().serialize(new CountMinEstimate<>(
                new BigInteger("123456789012345678901234567890"), new BigDecimal("1.50"), 1, 0.5, 2)));
        assertThat(n.get("scope").isNumber()).as(n.toString()).isTrue();
        assertThat(n.get("scope").bigIntegerValue()).isEqualTo(new BigInteger("123456789012345678901234567890"));
        assertThat(n.get("query").isNumber()).as(n.toString()).isTrue();
        assertThat(n.get("query").decimalValue()).isEqualByComparingTo("1.5");
    }

    /**
     * A reason quotes the value it refuses: "weight field w must be an integral number, got a fractional number 1" for
     * an input of 1.0 named a value that is integral and not the one sent (Jackson strips BigDecimal trailing zeros).
     */
    @Test
    void fieldErrorsQuoteTheNumberAsSent() {
        JsonEventFormat f = JsonEventFormat.builder().keyField("id").weightField("w").timestampField("ts").build();
        Throwable t = catchThrowable(() -> f.decode(utf8("{\"id\":\"a\",\"w\":1.0,\"ts\":5}")));
        assertThat(((MalformedRecordException) t).reason())
                .isEqualTo("weight field w must be an integral number, got a fractional number 1.0");
        t = catchThrowable(() -> f.decode(utf8("{\"id\":\"a\",\"w\":1,\"ts\":1763720000123.000}")));
        assertThat(((MalformedRecordException) t).reason()).endsWith("got a fractional number 1763720000123.000");
    }

    /** The SECONDS conversion is unchanged by keeping trailing zeros. */
    @Test
    void fractionalSecondsStillFloorToMilliseconds() throws Exception {
        JsonEventFormat s = JsonEventFormat.builder().keyField("id").timestampField("ts")
                .epochUnit(JsonEventFormat.EpochUnit.SECONDS).build();
        assertThat(s.decode(utf8("{\"id\":\"a\",\"ts\":1763720000.1230000}")).timestamp).isEqualTo(1763720000123L);
        assertThat(s.decode(utf8("{\"id\":\"a\",\"ts\":1.9999}")).timestamp).isEqualTo(1999L);
        assertThat(s.decode(utf8("{\"id\":\"a\",\"ts\":1E+2}")).timestamp).isEqualTo(100_000L);
        assertThat(s.decode(utf8("{\"id\":\"a\",\"ts\":0.00000}")).timestamp).isEqualTo(0L);
        assertThat(s.decode(utf8("{\"id\":\"a\",\"ts\":253402300799.9990000}")).timestamp)
                .isEqualTo(JsonEventFormat.MAX_TIMESTAMP);
    }

    /** The read limits FORMATS.md now states: valid JSON beyond them is malformed, with offset -1. */
    @Test
    void jacksonsReadLimitsAreTheDocumentedOnes() throws Exception {
        JsonEventFormat f = JsonEventFormat.builder().keyField("id").build();
        String deep = "{\"id\":\"a\",\"x\":" + "[".repeat(999) + "]".repeat(999) + "}";
        assertThat(f.decode(utf8(deep)).key).isEqualTo("a"); // depth 1000 with the object
        String deeper = "{\"id\":\"a\",\"x\":" + "[".repeat(1000) + "]".repeat(1000) + "}";
        Throwable t = catchThrowable(() -> f.decode(utf8(deeper)));
        assertThat(((MalformedRecordException) t).reason()).startsWith("bad JSON: ");
        assertThat(f.decode(utf8("{\"id\":\"a\",\"n\":1" + "0".repeat(999) + "}")).key).isEqualTo("a");
        t = catchThrowable(() -> f.decode(utf8("{\"id\":\"a\",\"n\":1" + "0".repeat(1000) + "}")));
        assertThat(((MalformedRecordException) t).reason()).startsWith("bad JSON: ");
        assertThat(((MalformedRecordException) t).offset()).isEqualTo(-1);
    }
}
