package io.linerate.jobs.format;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.linerate.flink.flowmeter.MeteredFlow;
import io.linerate.sketches.flowtable.ExportReason;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * The hand-written flow-record JSON ({@link FlowRecordJson}) against the text Jackson's generator writes for the same
 * fields (the generic way every other output record is written, and how flow records were written before): byte for
 * byte, for random flows and for the edges of every field.
 */
class FlowRecordJsonTest {

    private static final JsonFactory JACKSON = new JsonFactory();

    /** The flow object as a plain Jackson generator writes it: the oracle. */
    private static <K> String jackson(MeteredFlow<K> f, ValueWriter<? super K> scope) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (JsonGenerator g = JACKSON.createGenerator(bytes)) {
            g.writeStartObject();
            g.writeStringField("type", "flow");
            g.writeFieldName("scope");
            scope.write(f.scope, g);
            g.writeNumberField("ip_version", f.ipv6 ? 6 : 4);
            g.writeStringField("src_addr", f.ipv6 ? Addresses.ipv6(f.srcHigh, f.srcLow) : dottedQuad((int) f.srcLow));
            g.writeStringField("dst_addr", f.ipv6 ? Addresses.ipv6(f.dstHigh, f.dstLow) : dottedQuad((int) f.dstLow));
            g.writeNumberField("src_port", f.srcPort);
            g.writeNumberField("dst_port", f.dstPort);
            g.writeNumberField("protocol", f.protocol);
            g.writeNumberField("packets", f.packets);
            g.writeNumberField("bytes", f.bytes);
            g.writeNumberField("first_timestamp", f.firstTimestamp);
            g.writeNumberField("last_timestamp", f.lastTimestamp);
            g.writeNumberField("tcp_flags", f.tcpFlags);
            g.writeStringField("export_reason", f.reason == null ? null : f.reason.name().toLowerCase(Locale.ROOT));
            g.writeEndObject();
        }
        return bytes.toString(StandardCharsets.UTF_8);
    }

    /** IPv4 text by the JDK, independent of {@link Addresses}. */
    private static String dottedQuad(int address) {
        try {
            return InetAddress.getByAddress(new byte[] {(byte) (address >>> 24), (byte) (address >>> 16),
                    (byte) (address >>> 8), (byte) address}).getHostAddress();
        } catch (UnknownHostException e) {
            throw new AssertionError(e);
        }
    }

    private static <K> MeteredFlow<K> random(SplittableRandom r, K scope) {
        MeteredFlow<K> f = new MeteredFlow<>();
        f.scope = scope;
        f.ipv6 = r.nextInt(4) == 0;
        if (f.ipv6) {
            f.srcHigh = r.nextBoolean() ? r.nextLong() : 0x20010db800000000L;
            f.srcLow = r.nextBoolean() ? r.nextLong() : r.nextInt(3);
            f.dstHigh = r.nextInt(8) == 0 ? 0 : r.nextLong();
            f.dstLow = r.nextInt(8) == 0 ? 0xFFFF00000000L | (r.nextInt() & 0xFFFFFFFFL) : r.nextLong();
        } else {
            f.srcLow = r.nextInt() & 0xFFFFFFFFL;
            f.dstLow = r.nextInt() & 0xFFFFFFFFL;
        }
        f.srcPort = r.nextInt(65_536);
        f.dstPort = r.nextInt(65_536);
        f.protocol = r.nextInt(256);
        f.packets = number(r);
        f.bytes = number(r);
        f.firstTimestamp = number(r);
        f.lastTimestamp = number(r);
        f.tcpFlags = r.nextInt(65_536);
        ExportReason[] reasons = ExportReason.values();
        int reason = r.nextInt(reasons.length + 1);
        f.reason = reason == reasons.length ? null : reasons[reason];
        return f;
    }

    /** Numbers of every length, sign and 9-digit boundary the encoder splits at. */
    private static long number(SplittableRandom r) {
        return switch (r.nextInt(8)) {
            case 0 -> r.nextInt(1000);
            case 1 -> r.nextInt();
            case 2 -> r.nextLong();
            case 3 -> 1_700_000_000_000L + r.nextInt(1 << 30);
            case 4 -> List.of(0L, 9L, 10L, 99L, 100L, 999_999_999L, 1_000_000_000L, 999_999_999_999_999_999L,
                    1_000_000_000_000_000_000L, Integer.MAX_VALUE + 1L, (long) Integer.MAX_VALUE, Long.MAX_VALUE,
                    Long.MIN_VALUE, Long.MIN_VALUE + 1, -1L, -1_000_000_000L).get(r.nextInt(16));
            case 5 -> (long) Math.pow(10, r.nextInt(19)) - r.nextInt(2);
            case 6 -> -((long) Math.pow(10, r.nextInt(19)));
            default -> r.nextLong() >>> r.nextInt(64);
        };
    }

    private static <K> void assertSameAsJackson(JsonSerialization<MeteredFlow<K>> json, MeteredFlow<K> f,
                                                ValueWriter<? super K> scope) throws IOException {
        assertThat(json.toJson(f)).as("%s", f).isEqualTo(jackson(f, scope));
    }

    @Test
    void randomFlowsAreWrittenAsJacksonWritesThem() throws IOException {
        JsonSerialization<MeteredFlow<Integer>> json = OutputJson.flows();
        SplittableRandom r = new SplittableRandom(20261125L);
        for (int i = 0; i < 20_000; i++) {
            int scope = r.nextBoolean() ? r.nextInt(16) : r.nextInt();
            assertSameAsJackson(json, random(r, scope), ValueWriter.auto());
        }
    }

    @Test
    void everyKindOfScopeIsWrittenAsItsWriterWritesIt() throws IOException {
        SplittableRandom r = new SplittableRandom(7);
        List<Object> scopes = List.of(3L, (short) -4, (byte) 5, Long.MIN_VALUE, 2.5, true, "link \"a\"\\b\n\u00e9\u4e2d",
                List.of(1, 2));
        JsonSerialization<MeteredFlow<Object>> auto = OutputJson.flows();
        JsonSerialization<MeteredFlow<Object>> text = OutputJson.flows(ValueWriter.text());
        for (Object scope : scopes) {
            assertSameAsJackson(auto, random(r, scope), ValueWriter.auto());
            assertSameAsJackson(text, random(r, scope), ValueWriter.text());
        }
        assertSameAsJackson(auto, random(r, null), ValueWriter.auto());
        // a writer of its own: an object per scope
        ValueWriter<Object> object = (v, g) -> {
            g.writeStartObject();
            g.writeStringField("link", String.valueOf(v));
            g.writeEndObject();
        };
        JsonSerialization<MeteredFlow<Object>> custom = OutputJson.flows(object);
        for (int i = 0; i < 100; i++) {
            assertSameAsJackson(custom, random(r, "l" + i), object);
        }
    }

    @Test
    void theOutputIsValidJsonWithTheDocumentedFields() throws IOException {
        MeteredFlow<Integer> f = random(new SplittableRandom(3), 2);
        f.reason = ExportReason.EVICTED;
        var node = new ObjectMapper().readTree(OutputJson.<Integer>flows().serialize(f));
        assertThat(node.get("type").asText()).isEqualTo("flow");
        assertThat(node.get("scope").asInt()).isEqualTo(2);
        assertThat(node.get("export_reason").asText()).isEqualTo("evicted");
        assertThat(node.get("packets").asLong()).isEqualTo(f.packets);
        assertThat(node.size()).isEqualTo(14);
    }

    @Test
    void aScopeWriterThatFailsOrLeavesItsValueOpenDoesNotSpoilTheNextRecord() throws IOException {
        ValueWriter<Object> flaky = (v, g) -> {
            if ("fail".equals(v)) {
                g.writeStartArray();
                throw new IOException("writer failed on purpose");
            }
            if ("open".equals(v)) {
                g.writeStartArray(); // and never closes it: completed like Jackson's close() does
                g.writeNumber(1);
                return;
            }
            g.writeString(String.valueOf(v));
        };
        JsonSerialization<MeteredFlow<Object>> json = OutputJson.flows(flaky);
        SplittableRandom r = new SplittableRandom(11);
        MeteredFlow<Object> good = random(r, "ok");
        assertSameAsJackson(json, good, flaky);
        assertThatThrownBy(() -> json.serialize(random(r, "fail"))).isInstanceOf(UncheckedIOException.class)
                .hasMessageContaining("cannot write").hasRootCauseMessage("writer failed on purpose");
        assertSameAsJackson(json, good, flaky);
        MeteredFlow<Object> open = random(r, "open");
        assertThat(json.toJson(open)).contains("\"scope\":[1],\"ip_version\"");
        assertSameAsJackson(json, good, flaky);
    }

    @Test
    void aShippedCopyOfTheSchemaWritesTheSameBytes() throws Exception {
        JsonSerialization<MeteredFlow<Integer>> json = OutputJson.flows();
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
            out.writeObject(json); // as Flink ships the schema to its task managers
        }
        @SuppressWarnings("unchecked")
        JsonSerialization<MeteredFlow<Integer>> copy = (JsonSerialization<MeteredFlow<Integer>>)
                new ObjectInputStream(new ByteArrayInputStream(bytes.toByteArray())).readObject();
        SplittableRandom r = new SplittableRandom(5);
        for (int i = 0; i < 100; i++) {
            assertSameAsJackson(copy, random(r, r.nextInt(100)), ValueWriter.auto());
        }
        assertThat(ValueWriter.auto()).isSameAs(AutoValueWriter.INSTANCE);
    }

    @Test
    void ipv4TextMatchesTheJdks() {
        byte[] out = new byte[Addresses.IPV4_MAX_TEXT + 3];
        int[] octets = {0, 1, 9, 10, 99, 100, 199, 255};
        for (int a : octets) {
            for (int b : octets) {
                int address = (a << 24) | (b << 16) | (b << 8) | a;
                int end = Addresses.ipv4(out, 3, address);
                assertThat(new String(out, 3, end - 3, StandardCharsets.US_ASCII)).isEqualTo(dottedQuad(address));
                assertThat(Addresses.ipv4(address)).isEqualTo(dottedQuad(address));
            }
        }
        assertThat(Addresses.ipv4(out, 0, -1)).isEqualTo(Addresses.IPV4_MAX_TEXT);
    }
}
