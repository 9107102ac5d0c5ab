package io.linerate.jobs.format;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** The strict UTF-8 check of JSON input values and the surrogate-safe cut of quoted text (docs/FORMATS.md). */
class Utf8TextTest {

    private static final String EMOJI = "\uD83D\uDE00";

    @Test
    void aCutNeverSplitsASurrogatePairWhateverFollowsIt() {
        assertThat(Utf8Text.prefix("a".repeat(9) + EMOJI + "b", 10)).isEqualTo("a".repeat(9));
        assertThat(Utf8Text.prefix("a".repeat(9) + EMOJI + EMOJI, 10)).isEqualTo("a".repeat(9));
        assertThat(Utf8Text.prefix("a".repeat(10) + EMOJI, 10)).isEqualTo("a".repeat(10));
        assertThat(Utf8Text.prefix("a".repeat(8) + EMOJI + "b", 10)).isEqualTo("a".repeat(8) + EMOJI);
        assertThat(Utf8Text.prefix(EMOJI + "b", 1)).isEmpty();
    }

    @Test
    void everyByteOrderMarkIsRefusedEvenAlone() throws MalformedRecordException {
        byte[][] utf8Boms = {{(byte) 0xEF, (byte) 0xBB, (byte) 0xBF}, {(byte) 0xEF, (byte) 0xBB, (byte) 0xBF, '{'}};
        for (byte[] v : utf8Boms) {
            assertThatThrownBy(() -> Utf8Text.of(v)).isInstanceOf(MalformedRecordException.class)
                    .hasMessageContaining("starts with a UTF-8 byte order mark");
        }
        byte[][] wideBoms = {{(byte) 0xFE, (byte) 0xFF}, {(byte) 0xFF, (byte) 0xFE},
            {(byte) 0xFF, (byte) 0xFE, '{', 0}, {(byte) 0xFE, (byte) 0xFF, 0, '{'}};
        for (byte[] v : wideBoms) {
            assertThatThrownBy(() -> Utf8Text.of(v)).isInstanceOf(MalformedRecordException.class)
                    .hasMessageContaining("starts with a UTF-16/32 byte order mark");
        }
        // the first bytes of a BOM alone are not one: just invalid UTF-8 (or, for 0xEF 0xBB, a cut sequence)
        assertThatThrownBy(() -> Utf8Text.of(new byte[] {(byte) 0xFF})).isInstanceOf(MalformedRecordException.class)
                .hasMessageContaining("invalid UTF-8");
        assertThatThrownBy(() -> Utf8Text.of(new byte[] {(byte) 0xEF, (byte) 0xBB}))
                .isInstanceOf(MalformedRecordException.class).hasMessageContaining("invalid UTF-8");
        assertThat(Utf8Text.of("{}".getBytes(StandardCharsets.UTF_8))).isEqualTo("{}");
        assertThat(Utf8Text.of(new byte[0])).isEmpty();
    }
}
