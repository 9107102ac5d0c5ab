package io.linerate.jobs.format;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.fail;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class JsonEventFormatTest {

    private static final JsonEventFormat FULL = JsonEventFormat.builder()
            .keyField("user.id").weightField("/bytes").timestampField("ts").build();

    private static Event parse(JsonEventFormat f, String json) throws MalformedRecordException {
        return f.decode(json.getBytes(StandardCharsets.UTF_8));
    }

    private static MalformedRecordException malformed(JsonEventFormat f, String json) {
        try {
            Event e = parse(f, json);
            fail("parsed " + e + " from " + json);
            return null;
        } catch (MalformedRecordException e) {
            return e;
        }
    }

    @Test
    void readsKeyWeightAndTimestampFromPointersAndDottedPaths() throws Exception {
        String json = "{\"user\":{\"id\":\"alice\"},\"bytes\":1500,\"ts\":1763720000123,\"extra\":[1,2]}";
        Event e = parse(FULL, json);
        assertThat(e).isEqualTo(new Event("alice", 1500, 1_763_720_000_123L, json));
        // a numeric key is its decimal text; big integers keep every digit
        assertThat(parse(FULL, "{\"user\":{\"id\":12345678901234567890},\"bytes\":0,\"ts\":0}").key)
                .isEqualTo("12345678901234567890");
        // pointer escapes: a field whose name holds a dot or a slash
        JsonEventFormat odd = JsonEventFormat.builder().keyField("/a.b/c~1d").build();
        assertThat(parse(odd, "{\"a.b\":{\"c/d\":\"k\"}}").key).isEqualTo("k");
        // array elements by index, UTF-8 keys
        JsonEventFormat arr = JsonEventFormat.builder().keyField("/tags/1").build();
        assertThat(parse(arr, "{\"tags\":[\"x\",\"ünï\"]}").key).isEqualTo("ünï");
    }

    @Test
    void defaultsWithoutWeightOrTimestampField() throws Exception {
        JsonEventFormat keyOnly = JsonEventFormat.builder().keyField("k").build();
        Event e = parse(keyOnly, " {\"k\":\"x\"} ");
        assertThat(e.weight).isEqualTo(1);
        assertThat(e.timestamp).isEqualTo(Event.NO_TIMESTAMP);
    }

    @Test
    void timestampsAsIso8601OrEpochUnits() throws Exception {
        assertThat(parse(FULL, "{\"user\":{\"id\":\"a\"},\"bytes\":1,\"ts\":\"2026-11-21T10:15:30.123Z\"}").timestamp)
                .isEqualTo(java.time.Instant.parse("2026-11-21T10:15:30.123Z").toEpochMilli());
        assertThat(parse(FULL, "{\"user\":{\"id\":\"a\"},\"bytes\":1,\"ts\":\"2026-11-21T11:15:30+01:00\"}").timestamp)
                .isEqualTo(java.time.Instant.parse("2026-11-21T10:15:30Z").toEpochMilli());
        JsonEventFormat seconds = JsonEventFormat.builder().keyField("k").timestampField("t")
                .epochUnit(JsonEventFormat.EpochUnit.SECONDS).build();
        assertThat(parse(seconds, "{\"k\":\"a\",\"t\":1763720000}").timestamp).isEqualTo(1_763_720_000_000L);
        assertThat(parse(seconds, "{\"k\":\"a\",\"t\":1763720000.25}").timestamp).isEqualTo(1_763_720_000_250L);
        assertThat(malformed(seconds, "{\"k\":\"a\",\"t\":9223372036854776}").reason())
                .isEqualTo("timestamp field t " + RANGE + "9223372036854776 s");
    }

    private static final String RANGE = "must be in [0, 253402300799999] ms since the epoch (1970-01-01T00:00:00Z to "
            + "9999-12-31T23:59:59.999Z), got ";

    /**
     * A timestamp before 1970 or after 9999 is malformed, whatever its form: it would move its dedup scope's clock
     * (and drop the scope's filter generations), and Long.MIN_VALUE is Event.NO_TIMESTAMP. The limits are accepted.
     */
    @Test
    void timestampsOutsideTheRangeAreMalformed() throws Exception {
        String prefix = "{\"user\":{\"id\":\"a\"},\"bytes\":1,\"ts\":";
        for (String bad : new String[] {"-1", "-9223372036854775808", "253402300800000", "9223372036854775807",
                "\"1969-12-31T23:59:59.999Z\"", "\"+10000-01-01T00:00:00Z\"", "\"-999999999-01-01T00:00:00Z\"",
                "\"+999999999-12-31T23:59:59Z\""}) {
            MalformedRecordException e = malformed(FULL, prefix + bad + "}");
            assertThat(e.reason()).as(bad).isEqualTo("timestamp field ts " + RANGE + bad);
            assertThat(e.offset()).isEqualTo(-1);
        }
        assertThat(parse(FULL, prefix + "0}").timestamp).isZero();
        assertThat(parse(FULL, prefix + "253402300799999}").timestamp).isEqualTo(253_402_300_799_999L);
        assertThat(parse(FULL, prefix + "\"9999-12-31T23:59:59.999Z\"}").timestamp)
                .isEqualTo(253_402_300_799_999L);
        JsonEventFormat seconds = JsonEventFormat.builder().keyField("k").timestampField("t")
                .epochUnit(JsonEventFormat.EpochUnit.SECONDS).build();
        for (String bad : new String[] {"-1", "-0.001", "253402300800", "253402300800.5"}) {
            assertThat(malformed(seconds, "{\"k\":\"a\",\"t\":" + bad + "}").reason()).as(bad)
                    .isEqualTo("timestamp field t " + RANGE + bad + " s");
        }
        assertThat(parse(seconds, "{\"k\":\"a\",\"t\":253402300799.999}").timestamp)
                .isEqualTo(253_402_300_799_999L);
        assertThat(parse(seconds, "{\"k\":\"a\",\"t\":0.0001}").timestamp).isZero();
    }

    /**
     * A few bytes can carry an exponent of 10⁸ (Jackson bounds a number's digits, not its exponent): the seconds are
     * judged by their digits before the point, without building the number (which took seconds and hundreds of MB).
     */
    @Test
    void hugeExponentsInSecondsAreJudgedWithoutBuildingTheNumber() {
        JsonEventFormat seconds = JsonEventFormat.builder().keyField("k").timestampField("t")
                .epochUnit(JsonEventFormat.EpochUnit.SECONDS).build();
        org.junit.jupiter.api.Assertions.assertTimeoutPreemptively(java.time.Duration.ofSeconds(5), () -> {
            assertThat(malformed(seconds, "{\"k\":\"a\",\"t\":1e100000000}").reason())
                    .isEqualTo("timestamp field t " + RANGE + "1E+100000000 s");
            assertThat(malformed(seconds, "{\"k\":\"a\",\"t\":-1e-100000000}").reason())
                    .isEqualTo("timestamp field t " + RANGE + "-1E-100000000 s");
            assertThat(parse(seconds, "{\"k\":\"a\",\"t\":1e-100000000}").timestamp).isZero();
            assertThat(malformed(seconds, "{\"k\":\"a\",\"t\":1e19}").reason())
                    .isEqualTo("timestamp field t " + RANGE + "1E+19 s");
            assertThat(parse(seconds, "{\"k\":\"a\",\"t\":1.7637200002e9}").timestamp).isEqualTo(1_763_720_000_200L);
        });
    }

    /** A reason quotes at most 200 characters of a field's value, however large the value. */
    @Test
    void reasonsQuoteLargeValuesShortened() {
        String quotes = "[\"" + "\\\"".repeat(50_000) + "\"]"; // an array of one string of 50,000 quote characters
        String reason = malformed(FULL, "{\"user\":{\"id\":\"a\"},\"bytes\":1,\"ts\":" + quotes + "}").reason();
        assertThat(reason).startsWith("timestamp field ts must be an integral number of milliseconds or an ISO-8601")
                .endsWith("(100004 characters)").hasSizeLessThan(400);
        String text = "\"" + "x".repeat(10_000) + "\"";
        assertThat(malformed(FULL, "{\"user\":{\"id\":\"a\"},\"bytes\":1,\"ts\":" + text + "}").reason())
                .endsWith("… (10000 characters)\"").hasSizeLessThan(400);
    }

    @Test
    void badFieldsNameTheField() {
        String prefix = "{\"user\":{\"id\":\"a\"},";
        assertThat(malformed(FULL, "{\"bytes\":1,\"ts\":0}").reason()).isEqualTo("key field user.id is missing");
        assertThat(malformed(FULL, "{\"user\":{\"id\":null},\"bytes\":1,\"ts\":0}").reason())
                .isEqualTo("key field user.id is null");
        assertThat(malformed(FULL, "{\"user\":{\"id\":{}},\"bytes\":1,\"ts\":0}").reason())
                .isEqualTo("key field user.id must be a string or an integral number, got an object");
        assertThat(malformed(FULL, "{\"user\":{\"id\":true},\"bytes\":1,\"ts\":0}").reason())
                .isEqualTo("key field user.id must be a string or an integral number, got a boolean");
        assertThat(malformed(FULL, "{\"user\":{\"id\":1.5},\"bytes\":1,\"ts\":0}").reason())
                .isEqualTo("key field user.id must be a string or an integral number, got a fractional number");
        assertThat(malformed(FULL, prefix + "\"ts\":0}").reason()).isEqualTo("weight field /bytes is missing");
        assertThat(malformed(FULL, prefix + "\"bytes\":\"12\",\"ts\":0}").reason())
                .isEqualTo("weight field /bytes must be an integral number, got a string \"12\"");
        assertThat(malformed(FULL, prefix + "\"bytes\":1.5,\"ts\":0}").reason())
                .isEqualTo("weight field /bytes must be an integral number, got a fractional number 1.5");
        assertThat(malformed(FULL, prefix + "\"bytes\":-3,\"ts\":0}").reason())
                .isEqualTo("weight field /bytes must be >= 0, got -3");
        assertThat(malformed(FULL, prefix + "\"bytes\":9223372036854775808,\"ts\":0}").reason())
                .isEqualTo("weight field /bytes must be at most 9223372036854775807, got 9223372036854775808");
        assertThat(malformed(FULL, prefix + "\"bytes\":-100000000000000000000,\"ts\":0}").reason())
                .isEqualTo("weight field /bytes must be >= 0, got -100000000000000000000");
        assertThat(malformed(FULL, prefix + "\"bytes\":1}").reason()).isEqualTo("timestamp field ts is missing");
        assertThat(malformed(FULL, prefix + "\"bytes\":1,\"ts\":\"yesterday\"}").reason())
                .isEqualTo("timestamp field ts is not an ISO-8601 date-time with an offset: \"yesterday\"");
        assertThat(malformed(FULL, prefix + "\"bytes\":1,\"ts\":\"2026-11-21T10:15:30\"}").reason())
                .as("a local time without offset is ambiguous")
                .startsWith("timestamp field ts is not an ISO-8601 date-time with an offset");
        assertThat(malformed(FULL, prefix + "\"bytes\":1,\"ts\":12.5}").reason())
                .isEqualTo("timestamp field ts must be an integral number of milliseconds or an ISO-8601 date-time "
                        + "string, got a fractional number 12.5");
        assertThat(malformed(FULL, prefix + "\"bytes\":1,\"ts\":[]}").reason())
                .startsWith("timestamp field ts must be an integral number");
        assertThat(malformed(FULL, prefix + "\"bytes\":1}").offset()).isEqualTo(-1);
    }

    @Test
    void badJsonIsMalformedWithJacksonsOffset() {
        MalformedRecordException e = malformed(FULL, "{\"user\":{\"id\":\"a\"},\"bytes\":1,");
        assertThat(e.reason()).startsWith("bad JSON: ");
        assertThat(e.offset()).isBetween(25L, 32L);
        assertThat(malformed(FULL, "").reason()).startsWith("bad JSON: ");
        assertThat(malformed(FULL, "   ").reason()).startsWith("bad JSON: ");
        assertThat(malformed(FULL, "[1,2]").reason()).isEqualTo("bad JSON: the event must be a JSON object, got an array");
        assertThat(malformed(FULL, "\"text\"").reason()).isEqualTo("bad JSON: the event must be a JSON object, got a string");
        assertThat(malformed(FULL, "{\"user\":{\"id\":\"a\"},\"bytes\":1,\"ts\":0} {}").reason())
                .as("trailing content").startsWith("bad JSON: ");
        assertThat(malformed(FULL, "{\"user\":{\"id\":\"a\"},\"bytes\":1,\"bytes\":2,\"ts\":0}").reason())
                .as("duplicate field").contains("Duplicate field 'bytes'");
        assertThat(malformed(FULL, "{\"user\":{\"id\":\"a\"},'bytes':1}").reason()).startsWith("bad JSON: ");
        byte[] badUtf8 = {'{', '"', 'k', '"', ':', '"', (byte) 0xC3, (byte) 0x28, '"', '}'};
        JsonEventFormat keyOnly = JsonEventFormat.builder().keyField("k").build();
        assertThatThrownBy(() -> keyOnly.decode(badUtf8)).isInstanceOf(MalformedRecordException.class)
                .hasMessageStartingWith("bad JSON: ");
        assertThatThrownBy(() -> keyOnly.decode(null)).isInstanceOf(MalformedRecordException.class)
                .hasMessage("record has no value (null)");
    }

    /**
     * Only UTF-8 without BOM: Jackson would detect a BOM, UTF-16 and UTF-32 (and pass some invalid UTF-8), while the
     * raw text passed through to the envelope is read as UTF-8, so the envelope would not be the JSON that was parsed
     * (or not JSON at all). Each of these is a dead letter naming the problem.
     */
    @Test
    void onlyStrictUtf8WithoutByteOrderMarkIsAccepted() {
        JsonEventFormat keyOnly = JsonEventFormat.builder().keyField("k").build();
        String json = "{\"k\":\"x\"}";
        byte[] utf8 = json.getBytes(StandardCharsets.UTF_8);
        byte[] bom = concat(new byte[] {(byte) 0xEF, (byte) 0xBB, (byte) 0xBF}, utf8);
        assertMalformed(keyOnly, bom, "bad JSON: starts with a UTF-8 byte order mark (EF BB BF); the value must be "
                + "UTF-8 without BOM", 0);
        for (String charset : new String[] {"UTF-16BE", "UTF-16LE", "UTF-32BE", "UTF-32LE"}) {
            byte[] wide = json.getBytes(java.nio.charset.Charset.forName(charset));
            MalformedRecordException e = malformedBytes(keyOnly, wide);
            assertThat(e.reason()).as(charset).startsWith("bad JSON: NUL byte in the first 4 bytes");
        }
        assertThat(malformedBytes(keyOnly, json.getBytes(StandardCharsets.UTF_16)).reason()).as("UTF-16 with BOM")
                .isEqualTo("bad JSON: starts with a UTF-16/32 byte order mark; the value must be UTF-8");
        // invalid UTF-8 inside a string: an overlong '/', an encoded surrogate, a code point above U+10FFFF, a lone
        // continuation byte, a truncated sequence
        byte[][] sequences = {{(byte) 0xC0, (byte) 0xAF}, {(byte) 0xED, (byte) 0xA0, (byte) 0x80},
            {(byte) 0xF4, (byte) 0x90, (byte) 0x80, (byte) 0x80}, {(byte) 0x80}, {(byte) 0xE2, (byte) 0x82}};
        for (byte[] bad : sequences) {
            byte[] value = concat(concat("{\"k\":\"a".getBytes(StandardCharsets.US_ASCII), bad), "\"}".getBytes(
                    StandardCharsets.US_ASCII));
            MalformedRecordException e = malformedBytes(keyOnly, value);
            assertThat(e.reason()).as(java.util.HexFormat.of().formatHex(bad)).startsWith("bad JSON: ");
            assertThat(e.offset()).as(java.util.HexFormat.of().formatHex(bad)).isEqualTo(7);
        }
    }

    /** What was parsed is what the envelope carries: valid JSON whose event is the input, for any UTF-8 text. */
    @Test
    void theEnvelopeHoldsTheParsedEventForAnyUtf8() throws Exception {
        JsonEventFormat keyOnly = JsonEventFormat.builder().keyField("k").build();
        com.fasterxml.jackson.databind.ObjectMapper strict = new com.fasterxml.jackson.databind.ObjectMapper();
        for (String json : new String[] {"{\"k\":\"ünï\",\"v\":\"中文\"}", "{\"k\":\"\uD83D\uDE00\"}",
                "{\"k\":\"\\ud83d\\ude00 \\u00e9\",\"n\":[1,2.5,null]}", "\t{\"k\":1}\n"}) {
            Event e = parse(keyOnly, json);
            byte[] envelope = OutputJson.uniqueEvents().serialize(e);
            com.fasterxml.jackson.databind.JsonNode n = strict.readTree(envelope);
            assertThat(n.get("event")).as(json).isEqualTo(strict.readTree(json));
            assertThat(n.get("key").asText()).isEqualTo(e.key);
            assertThat(new String(envelope, StandardCharsets.UTF_8)).contains(json.strip());
        }
    }

    private static void assertMalformed(JsonEventFormat f, byte[] value, String reason, long offset) {
        MalformedRecordException e = malformedBytes(f, value);
        assertThat(e.reason()).isEqualTo(reason);
        assertThat(e.offset()).isEqualTo(offset);
    }

    private static MalformedRecordException malformedBytes(JsonEventFormat f, byte[] value) {
        try {
            Event e = f.decode(value);
            fail("parsed " + e + " with text \"" + e.json + "\" from " + java.util.HexFormat.of().formatHex(value));
            return null;
        } catch (MalformedRecordException e) {
            return e;
        }
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] c = java.util.Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, c, a.length, b.length);
        return c;
    }

    @Test
    void configurationErrorsNameTheParameter() {
        assertThatThrownBy(() -> JsonEventFormat.builder().build())
                .hasMessage("keyField must be set: a JSON pointer or a dotted path");
        assertThatThrownBy(() -> JsonEventFormat.builder().keyField(null).build())
                .hasMessage("keyField must be a JSON pointer or a dotted path, got \"null\"");
        assertThatThrownBy(() -> JsonEventFormat.builder().keyField("a..b").build())
                .hasMessage("keyField has an empty part in the dotted path \"a..b\"");
        assertThatThrownBy(() -> JsonEventFormat.builder().keyField("k").weightField("").build())
                .hasMessageStartingWith("weightField must be");
        assertThatThrownBy(() -> JsonEventFormat.builder().keyField("k").timestampField(".ts").build())
                .hasMessage("timestampField has an empty part in the dotted path \".ts\"");
    }

    /**
     * A composite key is the JSON array of its parts' texts: equal tuples give equal keys, different tuples
     * different keys even where plain concatenation would not tell them apart, and a number counts as its text.
     */
    @Test
    void severalKeyFieldsMakeACompositeKey() throws Exception {
        JsonEventFormat pair = JsonEventFormat.builder().keyFields(java.util.List.of("user.id", "/session")).build();
        assertThat(pair.keyFields()).containsExactly("user.id", "/session");
        assertThat(pair.keyField()).isEqualTo("user.id, /session");
        assertThat(parse(pair, "{\"user\":{\"id\":\"alice\"},\"session\":42}").key)
                .isEqualTo("[\"alice\",\"42\"]")
                .isEqualTo(parse(pair, "{\"session\":\"42\",\"user\":{\"id\":\"alice\"},\"x\":1}").key);
        String ab = parse(pair, "{\"user\":{\"id\":\"a,b\"},\"session\":\"c\"}").key;
        String bc = parse(pair, "{\"user\":{\"id\":\"a\"},\"session\":\"b,c\"}").key;
        String quoted = parse(pair, "{\"user\":{\"id\":\"a\\\",\\\"b\"},\"session\":\"c\"}").key;
        assertThat(java.util.Set.of(ab, bc, quoted)).hasSize(3);
        assertThat(quoted).isEqualTo("[\"a\\\",\\\"b\",\"c\"]");
        // the composite key is valid JSON: its parts read back as they were
        assertThat(new com.fasterxml.jackson.databind.ObjectMapper().readValue(quoted, String[].class))
                .containsExactly("a\",\"b", "c");
        // each part is checked and named like a single key
        assertThat(malformed(pair, "{\"user\":{\"id\":\"a\"}}").getMessage())
                .isEqualTo("key field /session is missing");
        assertThat(malformed(pair, "{\"user\":{\"id\":[1]},\"session\":1}").getMessage())
                .isEqualTo("key field user.id must be a string or an integral number, got an array");
        // one field in the list is the plain key
        assertThat(parse(JsonEventFormat.builder().keyFields(java.util.List.of("k")).build(), "{\"k\":\"v\"}").key)
                .isEqualTo("v");

        assertThatThrownBy(() -> JsonEventFormat.builder().keyFields(java.util.List.of()).build())
                .hasMessage("keyField must name 1 to 16 fields, got 0");
        assertThatThrownBy(() -> JsonEventFormat.builder().keyFields(java.util.Collections.nCopies(17, "k")).build())
                .hasMessage("keyField must name 1 to 16 fields, got 17");
        assertThatThrownBy(() -> JsonEventFormat.builder().keyFields(java.util.List.of("user.id", "/user/id")).build())
                .hasMessage("keyField names one field twice: \"user.id\" and \"/user/id\"");
        assertThatThrownBy(() -> JsonEventFormat.builder().keyFields(java.util.List.of("a", "")).build())
                .hasMessage("keyField must be a JSON pointer or a dotted path, got \"\"");
    }

    @Test
    void survivesJavaSerializationAsFlinkShipsIt() throws Exception {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
            out.writeObject(FULL);
        }
        JsonEventFormat copy;
        try (ObjectInputStream in = new ObjectInputStream(new ByteArrayInputStream(bytes.toByteArray()))) {
            copy = (JsonEventFormat) in.readObject();
        }
        assertThat(parse(copy, "{\"user\":{\"id\":\"b\"},\"bytes\":7,\"ts\":5}"))
                .isEqualTo(new Event("b", 7, 5, "{\"user\":{\"id\":\"b\"},\"bytes\":7,\"ts\":5}"));
    }
}
