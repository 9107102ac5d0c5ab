package io.linerate.jobs.format;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.core.JsonFactory;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * The hand-written JSON fragments of the output records: numbers as Jackson writes a {@code long} (every digit-group
 * boundary and both extremes), quoted text that needs no escaping (anything else refused), and records longer than the
 * initial buffer.
 */
class JsonOutTest {

    private static String text(JsonOut out) {
        return new String(out.toByteArray(), StandardCharsets.UTF_8);
    }

    @Test
    void numbersAreWrittenAsJavaWritesALong() {
        long[] values = {0, 9, 10, 99, 100, 999_999_999, 1_000_000_000, Integer.MAX_VALUE, Integer.MAX_VALUE + 1L,
            -1, -10, Integer.MIN_VALUE, Integer.MIN_VALUE - 1L, 999_999_999_999_999_999L, 1_000_000_000_000_000_000L,
            2_147_483_647_000_000_000L, 2_147_483_647_999_999_999L, 2_147_483_648_000_000_000L,
            1_000_000_001_000_000_001L, Long.MAX_VALUE, Long.MIN_VALUE + 1, Long.MIN_VALUE};
        JsonOut out = new JsonOut(new JsonFactory());
        for (long v : values) {
            out.reset();
            out.number(v);
            assertThat(text(out)).isEqualTo(Long.toString(v));
        }
    }

    @Test
    void quotedTextAcceptsPrintableAsciiOnlyAndRefusesWhatNeedsEscaping() {
        JsonOut out = new JsonOut(new JsonFactory());
        out.quotedPlain(" !~az09:/");
        assertThat(text(out)).isEqualTo("\" !~az09:/\"");
        for (String bad : new String[] {"a\"b", "a\\b", "\u001F", "\u007F", "é", "\n"}) {
            assertThatThrownBy(() -> out.quotedPlain(bad)).as(bad).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageStartingWith("text needs escaping");
        }
        assertThat(JsonOut.ascii("\u007F\"type\":")).hasSize(8);
        assertThatThrownBy(() -> JsonOut.ascii("\"café\"")).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("not ASCII: \"café\"");
        assertThatThrownBy(() -> JsonOut.ascii("\u0080")).isInstanceOf(IllegalArgumentException.class);
    }

    /** A number or a quoted text that starts just before the end of the initial 512-byte buffer grows it. */
    @Test
    void aFragmentCrossingTheInitialBufferEndGrowsIt() {
        byte[] filler = JsonOut.ascii(" ".repeat(505));
        JsonOut out = new JsonOut(new JsonFactory());
        out.raw(filler);
        out.number(Long.MAX_VALUE);
        assertThat(text(out)).isEqualTo(" ".repeat(505) + Long.MAX_VALUE);
        out = new JsonOut(new JsonFactory());
        out.raw(filler);
        out.quotedPlain("abcdefgh");
        assertThat(text(out)).isEqualTo(" ".repeat(505) + "\"abcdefgh\"");
    }

    /** Every kind of fragment lands beyond the initial 512-byte buffer intact. */
    @Test
    void aRecordLongerThanTheInitialBufferKeepsEveryFragment() {
        JsonOut out = new JsonOut(new JsonFactory());
        StringBuilder expected = new StringBuilder();
        byte[] comma = JsonOut.ascii(",");
        for (int i = 0; i < 200; i++) {
            out.quotedIpv4(0xFFFFFFFF - i);
            out.raw(comma);
            out.quotedPlain("field-" + i);
            out.raw(comma);
            out.number(Long.MIN_VALUE);
            out.raw(comma);
            out.nullValue();
            expected.append("\"255.255.255.").append(255 - i).append("\",\"field-").append(i).append("\",")
                    .append(Long.MIN_VALUE).append(",null");
        }
        assertThat(text(out)).isEqualTo(expected.toString());
    }
}
