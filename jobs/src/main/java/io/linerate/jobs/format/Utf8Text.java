package io.linerate.jobs.format;

import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CoderResult;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/**
 * The text of a JSON value that must be UTF-8 without a byte order mark, decoded strictly. Jackson detects the
 * encoding of a byte array (a UTF-8 BOM, UTF-16 and UTF-32 with or without BOM) and is lenient with some invalid
 * UTF-8, while the raw text passed through to the output is decoded as UTF-8: the two must agree, so anything but
 * valid UTF-8 is refused. Valid UTF-8 JSON starts with whitespace or an ASCII token, so it has neither a BOM nor a
 * NUL byte in its first 4 bytes (where Jackson looks for UTF-16/32).
 */
final class Utf8Text {

    private Utf8Text() {
    }

    /**
     * The first {@code chars} characters of {@code text}, one fewer if the cut would split a surrogate pair: half
     * of an emoji is not Unicode, and strict JSON readers refuse the whole document that holds it.
     */
    static String prefix(String text, int chars) {
        int end = chars > 0 && Character.isHighSurrogate(text.charAt(chars - 1))
                && Character.isLowSurrogate(text.charAt(chars)) ? chars - 1 : chars;
        return text.substring(0, end);
    }

    /** @throws MalformedRecordException naming the problem and its byte offset */
    static String of(byte[] value) throws MalformedRecordException {
        if (value.length >= 3 && (value[0] & 0xFF) == 0xEF && (value[1] & 0xFF) == 0xBB && (value[2] & 0xFF) == 0xBF) {
            throw new MalformedRecordException("bad JSON: starts with a UTF-8 byte order mark (EF BB BF); the value "
                    + "must be UTF-8 without BOM", 0);
        }
        if (value.length >= 2 && ((value[0] & 0xFF) == 0xFE && (value[1] & 0xFF) == 0xFF
                || (value[0] & 0xFF) == 0xFF && (value[1] & 0xFF) == 0xFE)) {
            throw new MalformedRecordException("bad JSON: starts with a UTF-16/32 byte order mark; the value must be "
                    + "UTF-8", 0);
        }
        for (int i = 0; i < Math.min(4, value.length); i++) {
            if (value[i] == 0) {
                throw new MalformedRecordException("bad JSON: NUL byte in the first 4 bytes (UTF-16 or UTF-32?); the "
                        + "value must be UTF-8", i);
            }
        }
        CharsetDecoder utf8 = StandardCharsets.UTF_8.newDecoder()
                .onMalformedInput(CodingErrorAction.REPORT)
                .onUnmappableCharacter(CodingErrorAction.REPORT);
        ByteBuffer in = ByteBuffer.wrap(value);
        CharBuffer out = CharBuffer.allocate(value.length); // UTF-8 never has fewer bytes than UTF-16 chars
        CoderResult result = utf8.decode(in, out, true);
        if (result.isError()) {
            throw new MalformedRecordException("bad JSON: invalid UTF-8 byte sequence", in.position());
        }
        utf8.flush(out);
        return out.flip().toString();
    }
}
