package io.linerate.jobs.format;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.linerate.flink.cluster.TestCluster;
import io.linerate.flink.flowmeter.FlowMeter;
import io.linerate.flink.flowmeter.MeteredFlow;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.typeinfo.PrimitiveArrayTypeInfo;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.util.CloseableIterator;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The formats in a real job (MiniCluster, parallelism 2, checkpointing on): Kafka values — encoded batches and
 * garbage — are decoded as the Kafka source would, split into batches and dead letters, the batches cross a keyBy
 * (through {@link PacketBatchSerializer}) into the flow meter via {@link PacketBatch#ELEMENTS} and the
 * {@link PacketRecord} selectors, and both outputs are written with {@link OutputJson}. The flows read back from
 * the JSON equal the exact per-flow sums computed here; every garbage value is a dead letter.
 */
@SuppressWarnings("try")
class FormatsJobTest {

    @RegisterExtension
    static final MiniClusterExtension CLUSTER = TestCluster.twoSlots();

    /** A writer's text as a map function. */
    static final class ToJson<T> implements org.apache.flink.api.common.functions.MapFunction<T, String> {
        private final JsonSerialization<T> writer;

        ToJson(JsonSerialization<T> writer) {
            this.writer = writer;
        }

        @Override
        public String map(T value) {
            return writer.toJson(value);
        }
    }

    record Totals(long packets, long bytes, int flags) {
        Totals plus(PacketRecord p) {
            return new Totals(packets + 1, bytes + p.length(), flags | p.tcpFlags());
        }
    }

    @Test
    @org.junit.jupiter.api.Timeout(120)
    void decodedBatchesAreMeteredExactlyAndGarbageBecomesDeadLetters() throws Exception {
        SplittableRandom rnd = new SplittableRandom(23);
        List<byte[]> values = new ArrayList<>();
        Map<String, Totals> truth = new HashMap<>();
        long t = 1_763_720_000_000L;
        int garbage = 0;
        for (int b = 0; b < 120; b++) {
            int op = b % 3;
            PacketBatch batch = new PacketBatch(op);
            for (int i = 0; i < 40; i++) {
                t += rnd.nextInt(3);
                int flow = rnd.nextInt(25);
                boolean v6 = flow % 5 == 0;
                int protocol = flow % 2 == 0 ? 6 : 17;
                int flags = protocol == 6 ? 1 << rnd.nextInt(8) : 0;
                int length = rnd.nextInt(v6 ? 40 : 20, 1500);
                if (v6) {
                    batch.addIpv6(t, 0x20010db800000000L, flow, 0x20010db800000000L, 0xFFFF, 1000 + flow, 443,
                            protocol, flags, length);
                } else {
                    batch.addIpv4(t, 0x0A000000 | flow, 0x0A0000FE, 1000 + flow, 53, protocol, flags, length);
                }
                PacketRecord p = batch.get(batch.size() - 1);
                truth.merge(op + " " + p.srcAddress() + " " + p.dstAddress() + " " + p.srcPort() + " " + p.dstPort() + " "
                        + p.protocol(), new Totals(0, 0, 0).plus(p), (x, y) -> new Totals(
                        x.packets + y.packets, x.bytes + y.bytes, x.flags | y.flags));
            }
            values.add(PacketBatchCodec.encode(batch));
            if (b % 30 == 7) {
                byte[] bad = PacketBatchCodec.encode(batch);
                bad[2] = 9; // unknown version
                values.add(bad);
                values.add("not a batch".getBytes(java.nio.charset.StandardCharsets.UTF_8));
                garbage += 2;
            }
        }

        org.apache.flink.configuration.Configuration conf = new org.apache.flink.configuration.Configuration();
        conf.set(org.apache.flink.configuration.RestartStrategyOptions.RESTART_STRATEGY, "none");
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
        env.setParallelism(2);
        env.enableCheckpointing(50);
        KafkaDecoding<PacketBatch> decoding = KafkaDecoding.packetBatches();
        DataStream<Decoded<PacketBatch>> decoded = env
                .fromData(values, PrimitiveArrayTypeInfo.BYTE_PRIMITIVE_ARRAY_TYPE_INFO)
                .map(v -> decoding.decode(new ConsumerRecord<>("packets", 0, 0L, null, v)))
                .returns(Decoded.typeInfo(PacketBatchTypeInfo.INSTANCE)).setParallelism(1);
        SingleOutputStreamOperator<PacketBatch> batches = SplitDecoded.split(decoded, PacketBatchTypeInfo.INSTANCE)
                .setParallelism(1);
        DataStream<PacketBatch> timed = batches.assignTimestampsAndWatermarks(
                WatermarkStrategy.<PacketBatch>forMonotonousTimestamps()
                        .withTimestampAssigner((b, previous) -> b.maxTimestamp())).setParallelism(1);
        FlowMeter<PacketRecord, Integer> meter = FlowMeter.<PacketRecord>builder()
                .scope(PacketRecord::observationPoint, Types.INT)
                .packets(PacketRecord.FIVE_TUPLE).bytes(PacketRecord.LENGTH).tcpFlags(PacketRecord.TCP_FLAGS)
                .timestamps(PacketRecord.TIMESTAMP).capacity(1000).idleTimeout(Duration.ofMinutes(10))
                .activeTimeout(Duration.ofMinutes(30)).build();
        SingleOutputStreamOperator<MeteredFlow<Integer>> flows = meter.applyToBatches(timed,
                ObservationPointKey.INSTANCE, PacketBatch.ELEMENTS, PacketRecordTypeInfo.INSTANCE);
        JsonSerialization<MeteredFlow<Integer>> flowJson = OutputJson.flows();
        JsonSerialization<DeadLetter> deadJson = OutputJson.deadLetters();
        DataStream<String> out = flows.map(new ToJson<>(flowJson)).returns(Types.STRING)
                .union(batches.getSideOutput(DeadLetter.TAG).map(new ToJson<>(deadJson)).returns(Types.STRING));

        ObjectMapper json = new ObjectMapper();
        Map<String, Totals> metered = new HashMap<>();
        List<JsonNode> dead = new ArrayList<>();
        try (CloseableIterator<String> it = out.executeAndCollect("formats-job")) {
            while (it.hasNext()) {
                JsonNode n = json.readTree(it.next());
                if (n.get("type").asText().equals(OutputJson.DEAD_LETTER)) {
                    dead.add(n);
                    continue;
                }
                String key = n.get("scope").asInt() + " " + n.get("src_addr").asText() + " "
                        + n.get("dst_addr").asText() + " " + n.get("src_port").asInt() + " " + n.get("dst_port").asInt()
                        + " " + n.get("protocol").asInt();
                metered.merge(key, new Totals(n.get("packets").asLong(), n.get("bytes").asLong(),
                        n.get("tcp_flags").asInt()), (x, y) -> new Totals(x.packets + y.packets, x.bytes + y.bytes,
                        x.flags | y.flags));
            }
        }
        assertThat(metered).isEqualTo(truth);
        assertThat(metered).containsKey("0 2001:db8::14 2001:db8::ffff 1020 443 6"); // RFC 5952 text
        assertThat(dead).hasSize(garbage);
        assertThat(dead).extracting(n -> n.get("reason").asText())
                .allMatch(r -> r.equals("unknown version 9 (this decoder reads version 1)")
                        || r.startsWith("bad magic 0x6e6f"));
    }
}
