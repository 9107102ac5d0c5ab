package io.linerate.jobs.format;

import io.linerate.jobs.dedup.DedupDecoders;
import io.linerate.jobs.fuzz.Allocations;
import io.linerate.jobs.fuzz.FuzzBytes;
import io.linerate.jobs.fuzz.Mutations;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.record.TimestampType;

/**
 * The hostile-bytes harness of {@link PacketBatchesFuzzTest} and {@link JsonEventsFuzzTest}: turns fuzzer bytes into
 * Kafka record values and checks each decoder of untrusted record bytes against its contract.
 *
 * <p><b>The contract.</b> A decoder either returns a value or throws {@link MalformedRecordException} with a reason
 * and an offset inside the value (or {@link MalformedRecordException#NO_OFFSET}); anything else (an index out of
 * bounds, a negative array size, an arithmetic or null pointer exception, an {@link OutOfMemoryError}, a stack
 * overflow) is a finding. {@link KafkaDecoding} never throws and never reports "decoder failed" (which it writes for
 * a decoder's runtime exception); the dead letter it makes reads back through {@link DeadLetterReplay} as the
 * original record when nothing was cut, and is refused with {@link IllegalArgumentException} otherwise.
 * {@link DeadLetterReplay} reading arbitrary bytes either gives a record or throws {@link IllegalArgumentException}
 * with a message. {@link PacketBatchSerializer} (Flink's network and state bytes) either gives a batch or throws an
 * {@link IOException}: an {@link java.io.EOFException} from the input view when the bytes run out, else one with a
 * message.
 *
 * <p><b>Round trips.</b> Valid values generated from the fuzzer's bytes: a packet batch decodes from its encoding to
 * an equal batch (and through the Flink serializer too); a JSON event written by a generic JSON writer decodes to the
 * key, weight and time it was written with (milliseconds, seconds with a fraction, or an ISO-8601 date-time at any
 * offset); a decoded batch re-encodes to bytes that decode to it again.
 *
 * <p><b>Allocation bounds</b>, per decode, measured on the thread: the packet batch decoder at most
 * {@value #BATCH_BYTES_PER_INPUT_BYTE} bytes per input byte (its columns take 51 bytes per ≥ 17 bytes of packet), so
 * a count field claiming 65,536 packets in a short value fails before the columns are sized; the JSON decoders at most
 * {@value #JSON_BYTES_PER_INPUT_BYTE} per input byte (the text, the strict UTF-8 copy and Jackson's tree); each plus
 * {@value #SLACK_BYTES} bytes for fixed-size objects and messages.
 */
final class HostileRecords {

    static final long BATCH_BYTES_PER_INPUT_BYTE = 4;
    static final long JSON_BYTES_PER_INPUT_BYTE = 256;
    static final long SLACK_BYTES = 256 << 10;

    private static final JsonSerialization<DeadLetter> DEAD_LETTERS = OutputJson.deadLetters();
    private static final ObjectMapper WRITER = new ObjectMapper();
    /** Dead letters kept whole, and cut after 24 bytes (value, key, headers). */
    private static final KafkaDecoding<PacketBatch> BATCHES = KafkaDecoding.packetBatches();
    private static final KafkaDecoding<PacketBatch> BATCHES_CUT = KafkaDecoding.packetBatches(24);

    /** The formats the JSON inputs are read with: single and composite keys, weights, both epoch units. */
    static final List<JsonEventFormat> FORMATS = List.of(
            JsonEventFormat.builder().keyField("user.id").weightField("bytes").timestampField("ts").build(),
            JsonEventFormat.builder().keyField("/user/id").timestampField("/ts")
                    .epochUnit(JsonEventFormat.EpochUnit.SECONDS).build(),
            JsonEventFormat.builder().keyFields(List.of("user.id", "scope")).weightField("/bytes").build(),
            JsonEventFormat.builder().keyField("scope").build());

    private HostileRecords() {
    }

    // ------------------------------------------------------------------ packet batches

    /**
     * Fuzzer bytes to a packet batch value, by the first byte: 0 the rest as it is; 1 a v1 header's first 4 bytes,
     * then the rest (so inputs get past the magic, version and flags); 2 a valid batch generated from the rest,
     * checked for its round trip; 3 such a batch, mutated by the rest ({@link Mutations}). Then {@link #checkBatch}.
     */
    static void packetBatch(byte[] data) {
        FuzzBytes in = new FuzzBytes(data);
        int mode = in.u8() % 4;
        byte[] value;
        switch (mode) {
            case 0 -> value = in.rest();
            case 1 -> {
                byte[] rest = in.rest();
                value = new byte[4 + rest.length];
                value[0] = PacketBatchCodec.MAGIC_0;
                value[1] = PacketBatchCodec.MAGIC_1;
                value[2] = PacketBatchCodec.VERSION;
                System.arraycopy(rest, 0, value, 4, rest.length);
            }
            default -> {
                PacketBatch batch = generatedBatch(in);
                value = roundTrip(batch);
                if (mode == 3) {
                    value = Mutations.apply(value, in);
                }
            }
        }
        checkBatch(value);
    }

    /** A valid batch of 1 to 8 packets, every field from the fuzzer's bytes within the format's ranges. */
    static PacketBatch generatedBatch(FuzzBytes in) {
        int count = 1 + in.u8() % 8;
        PacketBatch batch = new PacketBatch(in.i32(), count);
        long base = in.atMost(PacketRecord.MAX_TIMESTAMP);
        for (int i = 0; i < count; i++) {
            long ts = base + in.atMost(Math.min(PacketBatch.MAX_SPAN_MS, PacketRecord.MAX_TIMESTAMP - base));
            int protocol = in.u8();
            int flags = protocol == PacketRecord.TCP ? in.u8() : 0;
            int srcPort = in.u16();
            int dstPort = in.u16();
            if (in.bit()) {
                int length = PacketRecord.MIN_IPV6_LENGTH
                        + in.below(PacketRecord.MAX_IPV6_LENGTH - PacketRecord.MIN_IPV6_LENGTH + 1);
                batch.addIpv6(ts, in.i64(), in.i64(), in.i64(), in.i64(), srcPort, dstPort, protocol, flags, length);
            } else {
                int length = PacketRecord.MIN_IPV4_LENGTH
                        + in.below(PacketRecord.MAX_IPV4_LENGTH - PacketRecord.MIN_IPV4_LENGTH + 1);
                batch.addIpv4(ts, in.i32(), in.i32(), srcPort, dstPort, protocol, flags, length);
            }
        }
        return batch;
    }

    /** decode(encode(batch)) == batch, also through the Flink serializer; returns the encoding. */
    static byte[] roundTrip(PacketBatch batch) {
        byte[] value = PacketBatchCodec.encode(batch);
        if (value.length != PacketBatchCodec.encodedSize(batch)) {
            throw new AssertionError("encodedSize " + PacketBatchCodec.encodedSize(batch) + " but encode wrote "
                    + value.length + " bytes for " + batch);
        }
        PacketBatch back;
        try {
            back = PacketBatchCodec.decode(value);
        } catch (MalformedRecordException e) {
            throw new AssertionError("the encoding of a valid batch is malformed: " + e.getMessage() + "; " + batch
                    + "; " + Allocations.hex(value), e);
        }
        if (!back.equals(batch)) {
            throw new AssertionError("decode(encode(b)) != b: " + batch + " came back as " + back);
        }
        PacketBatch viaSerializer = serializerRoundTrip(batch);
        if (!viaSerializer.equals(batch)) {
            throw new AssertionError("the Flink serializer gave back " + viaSerializer + " for " + batch);
        }
        return value;
    }

    private static PacketBatch serializerRoundTrip(PacketBatch batch) {
        try {
            PacketBatchSerializer s = new PacketBatchSerializer();
            DataOutputSerializer out = new DataOutputSerializer(64);
            s.serialize(batch, out);
            return s.deserialize(new DataInputDeserializer(out.getCopyOfBuffer()));
        } catch (IOException e) {
            throw new AssertionError("the Flink serializer cannot read back " + batch, e);
        }
    }

    /**
     * The packet batch decoders on one value: {@link PacketBatchCodec#decode} (contract, allocation bound, and a
     * decoded batch re-encodes to a value that decodes to it, canonical when the base is the smallest timestamp),
     * {@link PacketBatchSerializer} on the value with its length in front and on the value alone, and
     * {@link KafkaDecoding#packetBatches()} (whole and cut dead letters) with the dead letter's replay.
     */
    static void checkBatch(byte[] value) {
        PacketBatch[] result = new PacketBatch[1];
        Allocations.within("PacketBatchCodec.decode", value, BATCH_BYTES_PER_INPUT_BYTE * value.length + SLACK_BYTES,
                () -> {
                    result[0] = null;
                    try {
                        result[0] = PacketBatchCodec.decode(value);
                    } catch (MalformedRecordException e) {
                        checkMalformed("PacketBatchCodec.decode", e, value);
                    }
                });
        PacketBatch decoded = result[0];
        if (decoded != null) {
            byte[] again = PacketBatchCodec.encode(decoded);
            long base = value.length >= 20 ? bigEndianLong(value, 12) : -1;
            if (decoded.minTimestamp() == base && !Arrays.equals(again, value)) {
                throw new AssertionError("a decoded batch whose base is its smallest timestamp re-encodes to other "
                        + "bytes: " + Allocations.hex(value) + " -> " + Allocations.hex(again));
            }
            if (again.length > value.length) {
                throw new AssertionError("re-encoding grew the value: " + Allocations.hex(value));
            }
            roundTrip(decoded);
        }
        checkSerializer(value, true);
        checkSerializer(value, false);
        for (KafkaDecoding<PacketBatch> decoding : List.of(BATCHES, BATCHES_CUT)) {
            ConsumerRecord<byte[], byte[]> record = record(value);
            Decoded<PacketBatch> d = decoding.decode(record);
            if (d.isDead() != (decoded == null)) {
                throw new AssertionError("KafkaDecoding disagrees with the decoder on " + Allocations.hex(value)
                        + ": " + d);
            }
            checkDecoded(decoding, record, d);
        }
    }

    private static void checkSerializer(byte[] value, boolean withLength) {
        byte[] view = value;
        if (withLength) {
            view = new byte[4 + value.length];
            view[0] = (byte) (value.length >>> 24);
            view[1] = (byte) (value.length >>> 16);
            view[2] = (byte) (value.length >>> 8);
            view[3] = (byte) value.length;
            System.arraycopy(value, 0, view, 4, value.length);
        }
        byte[] bytes = view;
        // its scratch buffer is sized from the length field, which is checked against MAX_ENCODED_BYTES first
        Allocations.within("PacketBatchSerializer.deserialize", view, PacketBatchCodec.MAX_ENCODED_BYTES + 64
                + (BATCH_BYTES_PER_INPUT_BYTE + 1) * view.length + SLACK_BYTES, () -> {
                    PacketBatchSerializer s = new PacketBatchSerializer();
                    try {
                        PacketBatch b = s.deserialize(new DataInputDeserializer(bytes));
                        if (!serializerRoundTrip(b).equals(b)) {
                            throw new AssertionError("the Flink serializer does not round-trip what it read from "
                                    + Allocations.hex(bytes));
                        }
                    } catch (java.io.EOFException e) {
                        // the input view ran out (Flink's views say so without a message): the documented failure
                    } catch (IOException e) {
                        if (e.getMessage() == null || e.getMessage().isBlank()) {
                            throw new AssertionError("PacketBatchSerializer threw " + e + " without a message for "
                                    + Allocations.hex(bytes), e);
                        }
                    }
                });
    }

    // ------------------------------------------------------------------ JSON events

    /**
     * Fuzzer bytes to a JSON value, by the first byte: 0 the rest as it is; 1 an object whose key, weight,
     * timestamp and scope fields hold pieces of the rest (as they are, or quoted); 2 a valid event generated from
     * the rest, checked for its round trip; 3 such an event, mutated by the rest. Then {@link #checkJson}.
     */
    static void jsonEvent(byte[] data) {
        FuzzBytes in = new FuzzBytes(data);
        int mode = in.u8() % 4;
        byte[] value;
        switch (mode) {
            case 0 -> value = in.rest();
            case 1 -> {
                StringBuilder s = new StringBuilder("{\"user\":{\"id\":").append(piece(in)).append("},\"bytes\":")
                        .append(piece(in)).append(",\"ts\":").append(piece(in)).append(",\"scope\":")
                        .append(piece(in)).append('}');
                value = s.toString().getBytes(StandardCharsets.ISO_8859_1); // one byte per char: the pieces' bytes
            }
            default -> {
                value = generatedEvent(in);
                if (mode == 3) {
                    value = Mutations.apply(value, in);
                }
            }
        }
        checkJson(value);
    }

    /** Up to 24 bytes of the input, quoted or not, one char per byte. */
    private static String piece(FuzzBytes in) {
        boolean quoted = in.bit();
        String raw = new String(in.take(in.u8() % 25), StandardCharsets.ISO_8859_1);
        return quoted ? '"' + raw + '"' : raw;
    }

    /**
     * A valid event written by a generic JSON writer, read back by the formats it suits: the key (a string decoded
     * from the input as UTF-8, or an integer), the weight and the time as milliseconds ({@code FORMATS[0]}), as
     * seconds with a fraction or as an ISO-8601 date-time at an offset ({@code FORMATS[1]}, the weight ignored).
     */
    static byte[] generatedEvent(FuzzBytes in) {
        Object key;
        if (in.bit()) {
            byte[] digits = in.take(in.u8() % 24 + 1); // a two's-complement integer, of any sign and up to 192 bits
            key = digits.length == 0 ? BigInteger.ZERO : new BigInteger(digits);
        } else {
            key = new String(in.take(in.u8() % 32), StandardCharsets.UTF_8);
        }
        String keyText = key.toString();
        long weight = in.i64() & Long.MAX_VALUE;
        long ts = in.atMost(JsonEventFormat.MAX_TIMESTAMP);
        int style = in.u8() % 3;
        ObjectNode o = WRITER.createObjectNode();
        if (key instanceof BigInteger k) {
            o.putObject("user").put("id", k);
        } else {
            o.putObject("user").put("id", (String) key);
        }
        o.put("bytes", weight);
        switch (style) {
            case 0 -> o.put("ts", ts);
            case 1 -> o.put("ts", BigDecimal.valueOf(ts, 3).add(BigDecimal.valueOf(in.u8() % 10, 4)));
            default -> o.put("ts", Instant.ofEpochMilli(ts).atOffset(ZoneOffset.ofTotalSeconds(
                    in.below(2 * 18 * 3600 + 1) - 18 * 3600)).format(DateTimeFormatter.ISO_OFFSET_DATE_TIME));
        }
        o.put("scope", in.u16());
        byte[] value;
        try {
            value = WRITER.writeValueAsBytes(o);
        } catch (IOException e) {
            throw new AssertionError(e);
        }
        String text = new String(value, StandardCharsets.UTF_8);
        Event expected = style == 0 ? new Event(keyText, weight, ts, text) : new Event(keyText, 1, ts, text);
        Event got;
        try {
            got = FORMATS.get(style == 0 ? 0 : 1).decode(value);
        } catch (MalformedRecordException e) {
            throw new AssertionError("a valid event is malformed: " + e.getMessage() + ": " + text, e);
        }
        if (!got.equals(expected)) {
            throw new AssertionError("decode(" + text + ") = " + got + ", expected " + expected);
        }
        return value;
    }

    /**
     * The JSON decoders on one value: each of {@link #FORMATS} (contract, allocation bound, and a decoded event
     * keeps the value's text, a weight >= 0 and a time in range or none), the dedup job's decoder of whole records
     * (scope, output size and record size checks) directly and through {@link KafkaDecoding}, and
     * {@link DeadLetterReplay} on the value.
     */
    static void checkJson(byte[] value) {
        for (JsonEventFormat format : FORMATS) {
            Event[] result = new Event[1];
            Allocations.within(format.toString(), value, JSON_BYTES_PER_INPUT_BYTE * value.length + SLACK_BYTES,
                    () -> {
                        result[0] = null;
                        try {
                            result[0] = format.decode(value);
                        } catch (MalformedRecordException m) {
                            checkMalformed(format.toString(), m, value);
                        }
                    });
            Event e = result[0];
            if (e != null) {
                if (!e.json.equals(new String(value, StandardCharsets.UTF_8)) || e.key == null || e.weight < 0
                        || e.timestamp != Event.NO_TIMESTAMP && (e.timestamp < JsonEventFormat.MIN_TIMESTAMP
                        || e.timestamp > JsonEventFormat.MAX_TIMESTAMP)) {
                    throw new AssertionError(format + " decoded " + Allocations.hex(value) + " to " + e);
                }
            }
        }
        ConsumerRecord<byte[], byte[]> record = record(value);
        for (int maxValueBytes : new int[] {64, 1 << 20}) {
            try {
                DedupDecoders.rawRecords(FORMATS.get(0), "scope", maxValueBytes, maxValueBytes + 512).decode(record);
            } catch (MalformedRecordException m) {
                checkMalformed("the dedup job's record decoder", m, value);
            }
            KafkaDecoding<?> decoding = DedupDecoders.kafkaDecoding(FORMATS.get(0), "scope", maxValueBytes,
                    maxValueBytes + 512);
            checkDecoded(decoding, record, decoding.decode(record));
        }
        Allocations.within("DeadLetterReplay.record", value, JSON_BYTES_PER_INPUT_BYTE * value.length + SLACK_BYTES,
                () -> {
                    try {
                        DeadLetterReplay.record(value);
                    } catch (IllegalArgumentException e) {
                        if (e.getMessage() == null || e.getMessage().isBlank()) {
                            throw new AssertionError("DeadLetterReplay threw " + e + " without a message", e);
                        }
                    }
                });
    }

    // ------------------------------------------------------------------ shared

    private static void checkMalformed(String decoder, MalformedRecordException e, byte[] value) {
        if (e.reason() == null || e.reason().isBlank() || e.offset() < MalformedRecordException.NO_OFFSET
                || e.offset() > value.length) {
            throw new AssertionError(decoder + ": reason \"" + e.reason() + "\" at offset " + e.offset()
                    + " for a value of " + value.length + " bytes: " + Allocations.hex(value), e);
        }
    }

    /**
     * A record around {@code value}: a key (none when the length is a multiple of 3) and headers (0 to 4, or 70 when
     * the length is a multiple of 11) made of the value's bytes, names decoded as UTF-8 as the consumer decodes them,
     * and a timestamp (none for an odd length).
     */
    static ConsumerRecord<byte[], byte[]> record(byte[] value) {
        int n = value.length;
        byte[] key = n % 3 == 0 ? null : Arrays.copyOf(value, Math.min(n, 8));
        int headerCount = n % 11 == 0 ? 70 : n % 5;
        Header[] headers = new Header[headerCount];
        for (int i = 0; i < headerCount; i++) {
            int from = Math.min(n, i * 3);
            byte[] slice = Arrays.copyOfRange(value, from, Math.min(n, from + 1 + i % 6));
            headers[i] = new RecordHeader(new String(slice, StandardCharsets.UTF_8), i % 3 == 2 ? null : slice);
        }
        return new ConsumerRecord<>("packets", 3, 42, n % 2 == 0 ? 1_763_720_000_000L : ConsumerRecord.NO_TIMESTAMP,
                TimestampType.CREATE_TIME, key == null ? -1 : key.length, n, key, value, new RecordHeaders(headers),
                Optional.empty());
    }

    /**
     * What {@link KafkaDecoding} emitted for {@code record}: a value, or a dead letter that says why (never "decoder
     * failed"), keeps the record's lengths, fits {@link KafkaDecoding#maxDeadLetterJsonBytes()} as JSON, and replays
     * as the record when it kept all of it (refused otherwise).
     */
    static void checkDecoded(KafkaDecoding<?> decoding, ConsumerRecord<byte[], byte[]> record, Decoded<?> d) {
        if (!d.isDead()) {
            return;
        }
        DeadLetter letter = d.deadLetter;
        if (letter.reason == null || letter.reason.isBlank() || letter.reason.startsWith("decoder failed")
                || letter.valueLength != record.value().length) {
            throw new AssertionError("dead letter " + letter + " for " + Allocations.hex(record.value()));
        }
        byte[] json = DEAD_LETTERS.serialize(letter);
        if (json.length > decoding.maxDeadLetterJsonBytes()) {
            throw new AssertionError("a dead letter of " + json.length + " bytes, above the bound "
                    + decoding.maxDeadLetterJsonBytes() + ": " + new String(json, StandardCharsets.UTF_8));
        }
        boolean whole = !letter.truncated() && !letter.keyTruncated() && !letter.headersTruncated();
        ProducerRecord<byte[], byte[]> back;
        try {
            back = DeadLetterReplay.record(json);
        } catch (IllegalArgumentException e) {
            if (whole) {
                throw new AssertionError("a whole dead letter is refused: " + e.getMessage() + ": "
                        + new String(json, StandardCharsets.UTF_8), e);
            }
            return;
        }
        if (!whole) {
            throw new AssertionError("a cut dead letter replays: " + new String(json, StandardCharsets.UTF_8));
        }
        List<Header> headers = new ArrayList<>();
        back.headers().forEach(headers::add);
        List<Header> original = new ArrayList<>();
        record.headers().forEach(original::add);
        Long timestamp = record.timestamp() < 0 ? null : record.timestamp();
        if (!back.topic().equals(record.topic()) || back.partition() != record.partition()
                || !java.util.Objects.equals(back.timestamp(), timestamp) || !Arrays.equals(back.key(), record.key())
                || !Arrays.equals(back.value(), record.value()) || !headers.equals(original)) {
            throw new AssertionError("the dead letter " + new String(json, StandardCharsets.UTF_8)
                    + " replays as " + back + ", not as " + record);
        }
    }

    private static long bigEndianLong(byte[] b, int at) {
        long v = 0;
        for (int i = 0; i < 8; i++) {
            v = v << 8 | (b[at + i] & 0xFF);
        }
        return v;
    }
}
