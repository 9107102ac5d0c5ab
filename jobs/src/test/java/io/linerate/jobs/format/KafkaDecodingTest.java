package io.linerate.jobs.format;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SplittableRandom;
import org.apache.flink.api.common.serialization.DeserializationSchema;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.metrics.SimpleCounter;
import org.apache.flink.metrics.groups.UnregisteredMetricsGroup;
import org.apache.flink.streaming.api.operators.ProcessOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.OneInputStreamOperatorTestHarness;
import org.apache.flink.util.SimpleUserCodeClassLoader;
import org.apache.flink.util.UserCodeClassLoader;
import org.apache.flink.api.common.functions.util.ListCollector;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.record.TimestampType;
import org.apache.flink.api.common.serialization.SerializerConfigImpl;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.java.typeutils.runtime.PojoSerializer;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.junit.jupiter.api.Test;

class KafkaDecodingTest {

    /** A metric group that keeps the counters registered on it, so the test can read them. */
    static final class CountingGroup extends UnregisteredMetricsGroup {
        final Map<String, Counter> counters = new HashMap<>();

        @Override
        public Counter counter(String name) {
            return counters.computeIfAbsent(name, n -> new SimpleCounter());
        }
    }

    static DeserializationSchema.InitializationContext context(MetricGroup group) {
        return new DeserializationSchema.InitializationContext() {
            @Override
            public MetricGroup getMetricGroup() {
                return group;
            }

            @Override
            public UserCodeClassLoader getUserCodeClassLoader() {
                return SimpleUserCodeClassLoader.create(KafkaDecodingTest.class.getClassLoader());
            }
        };
    }

    static ConsumerRecord<byte[], byte[]> record(long offset, byte[] value) {
        return new ConsumerRecord<>("packets", 3, offset, null, value);
    }

    @Test
    void validRecordsDecodeAndBadOnesBecomeDeadLettersCounted() throws Exception {
        KafkaDecoding<PacketBatch> schema = KafkaDecoding.packetBatches();
        CountingGroup metrics = new CountingGroup();
        schema.open(context(metrics));
        PacketBatch batch = PacketBatchCodecTest.randomBatch(new SplittableRandom(2), 7, 50, 0.5);
        byte[] good = PacketBatchCodec.encode(batch);
        byte[] truncated = Arrays.copyOf(good, good.length - 3);
        List<Decoded<PacketBatch>> out = new java.util.ArrayList<>();
        ListCollector<Decoded<PacketBatch>> collector = new ListCollector<>(out);
        schema.deserialize(record(10, good), collector);
        schema.deserialize(record(11, truncated), collector);
        schema.deserialize(record(12, null), collector);
        schema.deserialize(record(13, "{}".getBytes(StandardCharsets.UTF_8)), collector);

        assertThat(out).hasSize(4);
        assertThat(out.get(0).isDead()).isFalse();
        assertThat(out.get(0).value).isEqualTo(batch);
        DeadLetter cut = out.get(1).deadLetter;
        assertThat(cut.topic).isEqualTo("packets");
        assertThat(cut.partition).isEqualTo(3);
        assertThat(cut.offset).isEqualTo(11);
        assertThat(cut.reason).startsWith("packet 49: truncated");
        assertThat(cut.errorOffset).isBetween(good.length - 40L, good.length - 3L);
        assertThat(cut.value).isEqualTo(truncated);
        assertThat(cut.valueLength).isEqualTo(truncated.length);
        assertThat(cut.truncated()).isFalse();
        assertThat(out.get(2).deadLetter.reason).isEqualTo("record has no value (null)");
        assertThat(out.get(2).deadLetter.valueLength).isEqualTo(-1);
        assertThat(out.get(3).deadLetter.reason).isEqualTo("bad magic 0x7b7d, expected 0x4c52 (\"LR\")");
        assertThat(out.get(3).deadLetter.errorOffset).isZero();
        assertThat(metrics.counters.get("recordsDecoded").getCount()).isEqualTo(1);
        assertThat(metrics.counters.get("malformedRecords").getCount()).isEqualTo(3);
    }

    /** A dead letter says when its record was written: the Kafka timestamp, or -1 if the record has none. */
    @Test
    void deadLettersKeepTheRecordsKafkaTimestamp() {
        KafkaDecoding<PacketBatch> schema = KafkaDecoding.packetBatches();
        for (long ts : new long[] {1_763_720_000_500L, 0, -1}) {
            ConsumerRecord<byte[], byte[]> r = new ConsumerRecord<>("packets", 0, 5, ts,
                    org.apache.kafka.common.record.TimestampType.CREATE_TIME, 0, 2, null, new byte[] {1, 2},
                    new org.apache.kafka.common.header.internals.RecordHeaders(), java.util.Optional.empty());
            assertThat(schema.decode(r).deadLetter.timestamp).as("record time %d", ts).isEqualTo(ts);
        }
    }

    /** {@code maxDeadLetterBytes} may be 0 (keep no bytes, only the length); a negative limit is refused. */
    @Test
    void aDeadLetterLimitOfZeroKeepsNoBytes() {
        KafkaDecoding<Event> none = new KafkaDecoding<>(JsonEventFormat.builder().keyField("k").build(),
                Event.typeInfo(), 0);
        DeadLetter d = none.decode(record(1, "[1]".getBytes(StandardCharsets.UTF_8))).deadLetter;
        assertThat(d.value).isEmpty();
        assertThat(d.valueLength).isEqualTo(3);
        assertThat(d.truncated()).isTrue();
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> new KafkaDecoding<>(
                JsonEventFormat.builder().keyField("k").build(), Event.typeInfo(), -1))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("maxDeadLetterBytes must be >= 0, got -1");
    }

    @Test
    void deadLettersKeepAtMostTheLimit() {
        KafkaDecoding<Event> schema = new KafkaDecoding<>(JsonEventFormat.builder().keyField("k").build(),
                Event.typeInfo(), 8);
        byte[] big = ("{\"k\": [" + "1,".repeat(100) + "1]}").getBytes(StandardCharsets.UTF_8);
        Decoded<Event> d = schema.decode(record(1, big));
        assertThat(d.deadLetter.reason).isEqualTo("key field k must be a string or an integral number, got an array");
        assertThat(d.deadLetter.value).isEqualTo(Arrays.copyOf(big, 8));
        assertThat(d.deadLetter.valueLength).isEqualTo(big.length);
        assertThat(d.deadLetter.truncated()).isTrue();
        assertThat(schema.decode(record(2, "{\"k\":\"x\"}".getBytes(StandardCharsets.UTF_8))).value.key)
                .isEqualTo("x");
    }

    static ConsumerRecord<byte[], byte[]> record(long offset, byte[] key, byte[] value, Header... headers) {
        return new ConsumerRecord<>("packets", 3, offset, 1_763_720_000_000L, TimestampType.CREATE_TIME,
                key == null ? -1 : key.length, value == null ? -1 : value.length, key, value,
                new RecordHeaders(headers), Optional.empty());
    }

    static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    /**
     * A dead letter keeps the record's key and headers (a header with a null value and repeated names included),
     * so that the record can be written again exactly; before, both were dropped.
     */
    @Test
    void deadLettersKeepTheKeyAndTheHeaders() {
        KafkaDecoding<PacketBatch> schema = KafkaDecoding.packetBatches();
        DeadLetter d = schema.decode(record(4, bytes("tenant-1"), bytes("{}"),
                new RecordHeader("trace", bytes("abc")), new RecordHeader("none", null),
                new RecordHeader("trace", new byte[0]), new RecordHeader("\u00e9t\u00e9", new byte[] {0, -1}))).deadLetter;
        assertThat(d.key).isEqualTo(bytes("tenant-1"));
        assertThat(d.keyLength).isEqualTo(8);
        assertThat(d.keyTruncated()).isFalse();
        assertThat(d.headerKeys).containsExactly("trace", "none", "trace", "\u00e9t\u00e9");
        assertThat(d.headerValues).isDeepEqualTo(new byte[][] {bytes("abc"), null, new byte[0], new byte[] {0, -1}});
        assertThat(d.headerCount).isEqualTo(4);
        assertThat(d.headersTruncated()).isFalse();

        DeadLetter none = schema.decode(record(5, null, bytes("{}"))).deadLetter;
        assertThat(none.key).isEmpty();
        assertThat(none.keyLength).isEqualTo(-1);
        assertThat(none.headerKeys).isEmpty();
        assertThat(none.headerValues).isEmpty();
        assertThat(none.headerCount).isZero();
        assertThat(none.headersTruncated()).isFalse();
    }

    /**
     * The key is cut like the value (its first maxDeadLetterBytes bytes, its length kept); the headers are the
     * longest prefix within 64 headers and maxDeadLetterBytes bytes of names (UTF-8) and values, the count of all
     * of them kept: a record with a huge key or 100,000 headers makes a small dead letter.
     */
    @Test
    void theKeyAndTheHeadersAreKeptWithinTheLimits() {
        KafkaDecoding<Event> schema = new KafkaDecoding<>(JsonEventFormat.builder().keyField("k").build(),
                Event.typeInfo(), 16);
        byte[] key = bytes("k".repeat(100));
        // names and values: 1+3, 2+4 ("é" is 2 bytes), 1+5 = 16 bytes; the next (1 + 0) is over the limit, and so
        // is every later one even where it would fit: the kept headers are a prefix
        Header[] headers = {new RecordHeader("a", bytes("bcd")), new RecordHeader("\u00e9", bytes("efgh")),
                new RecordHeader("i", bytes("jklmn")), new RecordHeader("o", null), new RecordHeader("p", null)};
        DeadLetter d = schema.decode(record(1, key, bytes("["), headers)).deadLetter;
        assertThat(d.key).isEqualTo(Arrays.copyOf(key, 16));
        assertThat(d.keyLength).isEqualTo(100);
        assertThat(d.keyTruncated()).isTrue();
        assertThat(d.headerKeys).containsExactly("a", "\u00e9", "i");
        assertThat(d.headerCount).isEqualTo(5);
        assertThat(d.headersTruncated()).isTrue();

        KafkaDecoding<Event> roomy = new KafkaDecoding<>(JsonEventFormat.builder().keyField("k").build(),
                Event.typeInfo(), 1 << 20);
        Header[] many = new Header[100_000];
        for (int i = 0; i < many.length; i++) {
            many[i] = new RecordHeader("h", new byte[] {(byte) i});
        }
        DeadLetter m = roomy.decode(record(2, null, bytes("["), many)).deadLetter;
        assertThat(m.headerKeys).hasSize(KafkaDecoding.MAX_DEAD_LETTER_HEADERS);
        assertThat(m.headerValues.length).isEqualTo(KafkaDecoding.MAX_DEAD_LETTER_HEADERS);
        assertThat(m.headerValues[63]).containsExactly(63);
        assertThat(m.headerCount).isEqualTo(100_000);
        assertThat(m.headersTruncated()).isTrue();
        // one header too large for the limit alone: none kept, and none copied
        DeadLetter big = schema.decode(record(3, null, bytes("["), new RecordHeader("x", new byte[1 << 20])))
                .deadLetter;
        assertThat(big.headerKeys).isEmpty();
        assertThat(big.headerCount).isEqualTo(1);
        assertThat(KafkaDecoding.utf8Length("a\u00e9\u20ac\uD83D\uDE00\uD83D")).isEqualTo(1 + 2 + 3 + 4 + 3);
    }

    /** The dead letter with its key and headers crosses Flink's serializer (a POJO, not Kryo) unchanged. */
    @Test
    void deadLettersWithKeyAndHeadersSerializeAsPojos() throws Exception {
        DeadLetter d = KafkaDecoding.packetBatches().decode(record(4, bytes("k"), bytes("{}"),
                new RecordHeader("trace", bytes("abc")), new RecordHeader("none", null))).deadLetter;
        TypeSerializer<DeadLetter> serializer = DeadLetter.typeInfo().createSerializer(new SerializerConfigImpl());
        assertThat(serializer).isInstanceOf(PojoSerializer.class);
        DataOutputSerializer out = new DataOutputSerializer(64);
        serializer.serialize(d, out);
        DeadLetter back = serializer.deserialize(new DataInputDeserializer(out.getCopyOfBuffer()));
        assertThat(back).isEqualTo(d);
        assertThat(back.headerValues[1]).isNull();
        assertThat(serializer.copy(d)).isEqualTo(d);
        DeadLetter old = new DeadLetter("t", 0, 9, -1, "bad magic", 0, new byte[] {1, 2}, 2);
        out.clear();
        serializer.serialize(old, out);
        assertThat(serializer.deserialize(new DataInputDeserializer(out.getCopyOfBuffer()))).isEqualTo(old);
    }

    /** A dead letter keeps at most 2,000 characters of its reason: it stays far below the sink's record limit. */
    @Test
    void longReasonsAreCut() {
        String reason = "r".repeat(10_000);
        KafkaDecoding<String> schema = new KafkaDecoding<>(v -> {
            throw new MalformedRecordException(reason, 3);
        }, org.apache.flink.api.common.typeinfo.Types.STRING, 16);
        DeadLetter d = schema.decode(record(6, new byte[] {1})).deadLetter;
        assertThat(d.reason).isEqualTo("r".repeat(2_000) + "… (reason cut: 10000 characters)");
        assertThat(KafkaDecoding.capped("r".repeat(2_000))).as("a reason of exactly the limit").isEqualTo("r".repeat(2_000));
        assertThat(d.errorOffset).isEqualTo(3);
        KafkaDecoding<String> silent = new KafkaDecoding<>(v -> {
            throw new MalformedRecordException(null, 4); // a user decoder may give no reason: still a dead letter
        }, org.apache.flink.api.common.typeinfo.Types.STRING, 16);
        assertThat(silent.decode(record(7, new byte[] {1})).deadLetter.errorOffset).isEqualTo(4);
        // a cut never splits a surrogate pair (half an emoji is not Unicode; strict JSON readers refuse it)
        String emoji = "\uD83D\uDE00";
        KafkaDecoding<String> odd = new KafkaDecoding<>(v -> {
            throw new MalformedRecordException("r" + emoji.repeat(1_500), 0); // the cut falls inside a pair
        }, org.apache.flink.api.common.typeinfo.Types.STRING, 16);
        assertThat(odd.decode(record(8, new byte[] {1})).deadLetter.reason)
                .isEqualTo("r" + emoji.repeat(999) + "… (reason cut: 3001 characters)");
        assertThat(JsonEventFormat.shown(emoji.repeat(150))).startsWith(emoji.repeat(100) + "… (")
                .isEqualTo(emoji.repeat(100) + "… (300 characters)");
        assertThat(JsonEventFormat.shown("x" + emoji.repeat(150))).isEqualTo("x" + emoji.repeat(99)
                + "… (301 characters)");
    }

    /**
     * A user decoder may throw {@code MalformedRecordException(null, …)} (or a blank reason): the dead letter must still
     * say why, not {@code "reason": null} (docs/FORMATS.md: every dead letter carries the reason).
     */
    @Test
    void aDecoderThatGivesNoReasonStillGivesTheDeadLetterOne() throws Exception {
        for (String none : new String[] {null, "", "  "}) {
            KafkaDecoding<String> silent = new KafkaDecoding<>(v -> {
                throw new MalformedRecordException(none, 4);
            }, org.apache.flink.api.common.typeinfo.Types.STRING, 16);
            DeadLetter d = silent.decode(record(7, new byte[] {1})).deadLetter;
            assertThat(d.reason).as("reason for %s", none).isNotBlank().contains("no reason");
            assertThat(d.errorOffset).isEqualTo(4);
            assertThat(new MalformedRecordException(none, 4).getMessage()).doesNotStartWith("null")
                    .contains("no reason").endsWith("(at byte 4)");
        }
    }

    @Test
    void aDecoderBugIsDeadLetteredToo() {
        KafkaDecoding<String> schema = new KafkaDecoding<>(v -> {
            throw new IllegalStateException("boom");
        }, org.apache.flink.api.common.typeinfo.Types.STRING, 16);
        assertThat(schema.decode(record(5, new byte[] {1})).deadLetter.reason)
                .isEqualTo("decoder failed: java.lang.IllegalStateException: boom");
    }

    @Test
    void splitSendsValuesOnAndDeadLettersToTheSideOutput() throws Exception {
        SplitDecoded<PacketBatch> split = new SplitDecoded<>(PacketBatchTypeInfo.INSTANCE);
        try (OneInputStreamOperatorTestHarness<Decoded<PacketBatch>, PacketBatch> h =
                     new OneInputStreamOperatorTestHarness<>(new ProcessOperator<>(split))) {
            h.setup(new PacketBatchSerializer());
            h.open();
            PacketBatch b = PacketBatchCodecTest.randomBatch(new SplittableRandom(4), 1, 5, 0);
            DeadLetter dead = new DeadLetter("t", 0, 9, -1, "bad magic", 0, new byte[] {1, 2}, 2);
            h.processElement(new StreamRecord<>(Decoded.of(b), 100));
            h.processElement(new StreamRecord<>(Decoded.dead(dead), 101));
            assertThat(h.extractOutputValues()).containsExactly(b);
            assertThat(h.getSideOutput(DeadLetter.TAG)).extracting(StreamRecord::getValue).containsExactly(dead);
        }
    }
}
