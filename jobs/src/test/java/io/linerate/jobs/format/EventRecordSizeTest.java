package io.linerate.jobs.format;

import static org.assertj.core.api.Assertions.assertThat;

import io.linerate.flink.rejects.Rejected;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * {@link EventRecordSize} bounds what every writer of an event produces, for random keys of every kind of character
 * the JSON generator escapes or encodes (control characters, quotes, backslashes, 2- and 3-byte UTF-8, surrogate
 * pairs and lone surrogates, all read from JSON escapes) and random payloads.
 */
class EventRecordSizeTest {

    private static final JsonEventFormat FORMAT = JsonEventFormat.builder().keyField("k").weightField("w")
            .timestampField("t").build();
    private static final JsonSerialization<Rejected<Event>> REJECTED = OutputJson.rejected(
            (e, g) -> g.writeRawValue(e.json));

    @Test
    void everyOutputRecordOfAnEventIsWithinTheBound() throws Exception {
        SplittableRandom rnd = new SplittableRandom(5);
        String reason = "r".repeat(EventRecordSize.MAX_REASON_BYTES);
        for (int i = 0; i < 3_000; i++) {
            String value = "{\"k\":\"" + escaped(rnd, rnd.nextInt(0, 40)) + "\",\"w\":" + rnd.nextLong(Long.MAX_VALUE)
                    + ",\"t\":" + rnd.nextLong(JsonEventFormat.MAX_TIMESTAMP + 1) + ",\"pad\":\""
                    + "é中".repeat(rnd.nextInt(0, 200)) + "\"}";
            byte[] bytes = value.getBytes(StandardCharsets.UTF_8);
            Event e = FORMAT.decode(bytes);
            long bound = EventRecordSize.of(e, bytes.length);
            assertThat((long) OutputJson.uniqueEvents().serialize(e).length).as(value).isLessThanOrEqualTo(bound);
            assertThat((long) OutputJson.probableDuplicates().serialize(e).length).as(value).isLessThanOrEqualTo(bound);
            assertThat((long) OutputJson.rawEvents().serialize(e).length).as(value).isLessThanOrEqualTo(bound);
            assertThat((long) REJECTED.serialize(new Rejected<>(e, reason)).length).as(value).isLessThanOrEqualTo(bound);
        }
    }

    /** {@code n} random characters as JSON string escapes or themselves. */
    private static String escaped(SplittableRandom rnd, int n) {
        StringBuilder s = new StringBuilder();
        for (int i = 0; i < n; i++) {
            switch (rnd.nextInt(8)) {
                case 0 -> s.append(String.format(Locale.ROOT, "\\u%04x", rnd.nextInt(0x20))); // control character
                case 1 -> s.append(rnd.nextBoolean() ? "\\\"" : "\\\\");
                case 2 -> // lone surrogate
                        s.append(String.format(Locale.ROOT, "\\u%04x", rnd.nextInt(0xD800, 0xE000)));
                case 3 -> s.append("\\ud83d\\ude00"); // a surrogate pair
                case 4 -> s.append('é');
                case 5 -> s.append('中');
                case 6 -> s.appendCodePoint(0x1F600);
                default -> {
                    char c = (char) rnd.nextInt(0x20, 0x7F);
                    s.append(c == '"' || c == '\\' ? 'q' : c);
                }
            }
        }
        return s.toString();
    }
}
