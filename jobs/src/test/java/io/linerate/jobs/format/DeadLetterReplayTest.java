package io.linerate.jobs.format;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.junit.jupiter.api.Test;

/**
 * A dead letter's JSON ({@link OutputJson#deadLetters()}) gives back, through {@link DeadLetterReplay}, the record
 * it was made of: key, value, headers (order, repeated names and null values included) and timestamp; a dead letter
 * that kept less than the whole record is refused rather than replayed as another record.
 */
class DeadLetterReplayTest {

    private static final JsonSerialization<DeadLetter> JSON = OutputJson.deadLetters();

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] letterOf(KafkaDecoding<?> decoding, ConsumerRecord<byte[], byte[]> record) {
        Decoded<?> d = decoding.decode(record);
        assertThat(d.isDead()).isTrue();
        return JSON.serialize(d.deadLetter);
    }

    private static List<Header> headers(Iterable<Header> headers) {
        List<Header> list = new ArrayList<>();
        headers.forEach(list::add);
        return list;
    }

    @Test
    void aDeadLetterWithinTheLimitsReplaysAsItsRecord() {
        Header[] headers = {new RecordHeader("trace", bytes("abc")), new RecordHeader("none", null),
            new RecordHeader("trace", new byte[0])};
        ConsumerRecord<byte[], byte[]> original = KafkaDecodingTest.record(42, bytes("tenant-1"), bytes("{}"), headers);
        byte[] json = letterOf(KafkaDecoding.packetBatches(), original);

        ProducerRecord<byte[], byte[]> back = DeadLetterReplay.record(json);
        assertThat(back.topic()).isEqualTo("packets");
        assertThat(back.partition()).isEqualTo(3);
        assertThat(back.timestamp()).isEqualTo(original.timestamp());
        assertThat(back.key()).isEqualTo(original.key());
        assertThat(back.value()).isEqualTo(original.value());
        assertThat(headers(back.headers())).containsExactly(headers);

        ProducerRecord<byte[], byte[]> elsewhere = DeadLetterReplay.record(json, "retry");
        assertThat(elsewhere.topic()).isEqualTo("retry");
        assertThat(elsewhere.partition()).isNull();
        assertThat(elsewhere.key()).isEqualTo(original.key());

        // null key, null value, no headers
        ProducerRecord<byte[], byte[]> nulls = DeadLetterReplay.record(letterOf(KafkaDecoding.packetBatches(),
                KafkaDecodingTest.record(43, null, null)));
        assertThat(nulls.key()).isNull();
        assertThat(nulls.value()).isNull();
        assertThat(nulls.headers().toArray()).isEmpty();
    }

    @Test
    void aDeadLetterThatKeptLessThanTheRecordIsRefused() {
        KafkaDecoding<String> small = new KafkaDecoding<>(v -> {
            throw new MalformedRecordException("bad", 0);
        }, org.apache.flink.api.common.typeinfo.Types.STRING, 4);
        assertThatThrownBy(() -> DeadLetterReplay.record(letterOf(small,
                KafkaDecodingTest.record(1, null, bytes("12345")))))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("value truncated");
        assertThatThrownBy(() -> DeadLetterReplay.record(letterOf(small,
                KafkaDecodingTest.record(2, bytes("12345"), bytes("1")))))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("key truncated");
        assertThatThrownBy(() -> DeadLetterReplay.record(letterOf(small,
                KafkaDecodingTest.record(3, null, bytes("1"), new RecordHeader("h", bytes("1234"))))))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("headers truncated");
        // as written before dead letters kept the key and headers
        byte[] old = bytes("{\"type\":\"dead_letter\",\"topic\":\"packets\",\"partition\":0,\"offset\":1,"
                + "\"timestamp\":-1,\"reason\":\"bad\",\"error_offset\":0,\"value_length\":1,"
                + "\"value_truncated\":false,\"value_base64\":\"AQ==\"}");
        assertThatThrownBy(() -> DeadLetterReplay.record(old)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("before dead letters kept the key and headers");
        assertThatThrownBy(() -> DeadLetterReplay.record(bytes("{\"type\":\"rejected\"}")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("not a dead letter");
    }

    /** A damaged letter is refused naming the field: bad base64 (value, key, a header) or a partition below 0. */
    @Test
    void aDamagedLetterIsRefusedNamingTheField() {
        String head = "{\"type\":\"dead_letter\",\"topic\":\"packets\",\"partition\":%s,\"offset\":7,"
                + "\"timestamp\":-1,\"reason\":\"bad\",\"error_offset\":0,\"value_length\":1,"
                + "\"value_truncated\":false,\"value_base64\":\"%s\",\"key_length\":1,\"key_truncated\":false,"
                + "\"key_base64\":\"%s\",\"headers_truncated\":false,\"headers\":[{\"key\":\"h\","
                + "\"value_base64\":\"%s\"}]}";
        assertThat(DeadLetterReplay.record(bytes(String.format(Locale.ROOT,
                head, "0", "AQ==", "Ag==", "Aw=="))).value())
                .containsExactly(1);
        assertThatThrownBy(() -> DeadLetterReplay.record(bytes(String.format(Locale.ROOT,
                head, "0", "A?==", "Ag==", "Aw=="))))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("the dead letter of packets-0@7: value_base64 is not base64");
        assertThatThrownBy(() -> DeadLetterReplay.record(bytes(String.format(Locale.ROOT,
                head, "0", "AQ==", "*", "Aw=="))))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("key_base64 is not base64");
        assertThatThrownBy(() -> DeadLetterReplay.record(bytes(String.format(Locale.ROOT,
                head, "0", "AQ==", "Ag==", "%%"))))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("packets-0@7 headers[0]: value_base64 is not base64");
        assertThatThrownBy(() -> DeadLetterReplay.record(bytes(String.format(Locale.ROOT,
                head, "-1", "AQ==", "Ag==", "Aw=="))))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("the dead letter's partition must be an int >= 0, got -1");
        assertThatThrownBy(() -> DeadLetterReplay.record(bytes(String.format(Locale.ROOT,
                head, "\"x\"", "AQ==", "Ag==", "Aw=="))))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("the dead letter's partition must be an int >= 0, got \"x\"");
    }
}
