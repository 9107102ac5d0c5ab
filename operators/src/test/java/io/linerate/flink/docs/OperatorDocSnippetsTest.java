package io.linerate.flink.docs;

import static org.assertj.core.api.Assertions.assertThat;

import io.linerate.flink.cluster.TestCluster;
import io.linerate.flink.countmin.CountMinAggregate;
import io.linerate.flink.countmin.CountMinEstimate;
import io.linerate.flink.countmin.CountMinQueries;
import io.linerate.flink.countmin.WindowEstimate;
import io.linerate.flink.countmin.WindowSketch;
import io.linerate.flink.dedup.DedupStreams;
import io.linerate.flink.dedup.Deduplicator;
import io.linerate.flink.flowmeter.FlowMeter;
import io.linerate.flink.flowmeter.MeteredFlow;
import io.linerate.flink.heavyhitters.HeavyHitterAlert;
import io.linerate.flink.heavyhitters.HeavyHitterDetector;
import io.linerate.flink.heavyhitters.HeavyHitterReport;
import io.linerate.flink.items.ElementsOf;
import io.linerate.flink.items.ItemSelector;
import io.linerate.flink.rejects.Rejected;
import io.linerate.flink.serializers.FiveTupleTypeInfo;
import io.linerate.flink.serializers.LinerateTypes;
import io.linerate.sketches.flowtable.ExportReason;
import io.linerate.sketches.frequency.CountMinSketch;
import io.linerate.sketches.hash.FiveTuple;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.KeyedStream;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.apache.flink.streaming.api.datastream.WindowedStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.windowing.assigners.TumblingEventTimeWindows;
import org.apache.flink.streaming.api.windowing.windows.TimeWindow;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.util.Collector;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The Java snippets of README.md and docs/operators/*.md, verbatim inside the obvious boilerplate, run as jobs. */
class OperatorDocSnippetsTest {

    @RegisterExtension
    static final MiniClusterExtension CLUSTER = TestCluster.twoSlots();

    @BeforeAll
    static void register() {
        LinerateTypes.register();
    }

    static final long secretSeed = 99;

    /** The packet of README / heavy-hitters.md / flow-meter.md. */
    public static class Packet {
        public String link;
        public FiveTuple flow;
        public int length;
        public int src, dst, srcPort, dstPort, protocol, flags;
        public long timestampMillis, timeMillis;

        public Packet() {
        }

        static Packet of(String link, int src, int length, long time) {
            Packet p = new Packet();
            p.link = link;
            p.src = src;
            p.dst = 2;
            p.srcPort = 1000;
            p.dstPort = 443;
            p.protocol = 6;
            p.flags = 0x10;
            p.flow = FiveTuple.ipv4(p.src, p.dst, p.srcPort, p.dstPort, p.protocol);
            p.length = length;
            p.timestampMillis = time;
            p.timeMillis = time;
            return p;
        }
    }

    public static class Batch {
        public String link;
        public List<Packet> packets = new ArrayList<>();

        public Batch() {
        }

        public void forEachPacket(Consumer<? super Packet> each) {
            packets.forEach(each);
        }

        // flow-meter.md's batch shape
        public int size() {
            return packets.size();
        }

        public Packet packet(int i) {
            return packets.get(i);
        }
    }

    static List<Packet> samplePackets() {
        List<Packet> out = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            out.add(Packet.of("north", i < 60 ? 1 : 100 + i, 100, 1_000 + i));
        }
        out.add(Packet.of("north", 1, -5, 2_000));   // negative weight: malformed
        return out;
    }

    static DataStream<Packet> packets(StreamExecutionEnvironment env, List<Packet> input) {
        return env.fromData(input, TypeInformation.of(Packet.class)).assignTimestampsAndWatermarks(
                WatermarkStrategy.<Packet>forMonotonousTimestamps().withTimestampAssigner((p, t) -> p.timestampMillis));
    }

    static <T> DataStream<String> tagged(DataStream<T> s, String tag) {
        return s.map(x -> tag + " " + x).returns(Types.STRING);
    }

    @Test
    void readmeOperators() throws Exception {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(1);
        DataStream<Packet> packets = packets(env, samplePackets());

        // top-20 flows and every flow above 1% of the bytes, per link, per 5-minute window sliding by 1 minute
        SingleOutputStreamOperator<HeavyHitterReport<String>> reports = HeavyHitterDetector
                .builder((Packet p) -> p.link, ItemSelector.fiveTuples(p -> p.flow))
                .weight(p -> p.length).sliding(Duration.ofMinutes(5), Duration.ofMinutes(1)).topK(20).phi(0.01)
                .build().apply(packets);

        // NetFlow-style records per link from a bounded flow table
        SingleOutputStreamOperator<MeteredFlow<String>> flows = FlowMeter.<Packet>builder()
                .scope(p -> p.link, Types.STRING)
                .packets((p, sink) -> sink.ipv4(p.src, p.dst, p.srcPort, p.dstPort, p.protocol))
                .bytes(p -> p.length).capacity(100_000).build().apply(packets);

        List<HeavyHitterReport<String>> rs = new ArrayList<>();
        List<MeteredFlow<String>> fs = new ArrayList<>();
        List<String> all = new ArrayList<>();
        tagged(reports, "R").union(tagged(flows, "F")).executeAndCollect("readme").forEachRemaining(all::add);
        assertThat(all).filteredOn(s -> s.startsWith("R")).hasSize(5);          // 5 sliding windows hold t=1..2 s
        assertThat(all).filteredOn(s -> s.startsWith("F")).hasSize(41);         // 41 flows, bad packet rejected
        assertThat(all.stream().filter(s -> s.startsWith("R")).findFirst().orElseThrow()).contains("10000");
    }

    @Test
    void heavyHittersMd() throws Exception {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(1);
        List<Packet> input = samplePackets();
        input.add(Packet.of("north", 7, 100, 1_500));   // late: after watermark 2_000 - 1
        DataStream<Packet> packets = packets(env, input);

        HeavyHitterDetector<Packet, String> detector = HeavyHitterDetector
                .builder((Packet p) -> p.link, ItemSelector.fiveTuples(p -> p.flow))
                .weight(p -> p.length)                              // bytes; default WeightOf.one(): packets
                .sliding(Duration.ofMinutes(5), Duration.ofMinutes(1))
                .topK(20).phi(0.01)
                .alertAtFraction(0.2, 1_000)                        // optional (1_000_000 in the doc)
                .build();                                           // every configuration error fails here

        SingleOutputStreamOperator<HeavyHitterReport<String>> reports = detector.apply(packets); // keyBy(scope) inside
        DataStream<Packet> late = reports.getSideOutput(HeavyHitterDetector.lateTag(packets.getType()));
        DataStream<Rejected<Packet>> bad = reports.getSideOutput(Rejected.tag(packets.getType()));
        DataStream<HeavyHitterAlert<String>> alerts = reports.getSideOutput(HeavyHitterDetector.alertTag(Types.STRING));

        List<String> all = new ArrayList<>();
        tagged(reports, "R").union(tagged(late.map(p -> p.src).returns(Types.INT), "L"),
                tagged(bad.map(r -> r.reason).returns(Types.STRING), "B"), tagged(alerts, "A"))
                .executeAndCollect("hh").forEachRemaining(all::add);
        assertThat(all).filteredOn(s -> s.startsWith("R")).hasSize(5);
        assertThat(all).filteredOn(s -> s.startsWith("B")).hasSize(1);
        assertThat(all).filteredOn(s -> s.startsWith("A")).isNotEmpty();
        // a late packet is only late for windows already fired; with 5-min windows nothing fired at t=2 s
    }

    @Test
    void heavyHittersMdBatches() throws Exception {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(1);
        Batch b1 = new Batch();
        b1.link = "north";
        b1.packets.addAll(samplePackets());
        DataStream<Batch> batches = env.fromData(List.of(b1), TypeInformation.of(Batch.class));
        TypeInformation<Packet> packetType = TypeInformation.of(Packet.class);

        // Batch: one link's packets; ElementsOf hands them over one by one (it may reuse one mutable Packet: a flyweight)
        HeavyHitterDetector<Packet, String> detector = HeavyHitterDetector
                .builder((Packet p) -> p.link, ItemSelector.fiveTuples(p -> p.flow))   // selectors over the ELEMENT type
                .weight(p -> p.length)
                .timestamps(p -> p.timeMillis)          // each packet's own event time (else the batch record's timestamp)
                .sliding(Duration.ofMinutes(5), Duration.ofMinutes(1))
                .build();

        ElementsOf<Batch, Packet> packetsOf = (batch, each) -> batch.forEachPacket(each);
        SingleOutputStreamOperator<HeavyHitterReport<String>> reports =
                detector.applyToBatches(batches, (Batch b) -> b.link, packetsOf, packetType);  // keyBy(batchScope) inside
        DataStream<Packet> late = reports.getSideOutput(HeavyHitterDetector.lateTag(packetType));      // elements
        DataStream<Rejected<Packet>> bad = reports.getSideOutput(Rejected.tag(packetType));           // elements

        List<String> all = new ArrayList<>();
        tagged(reports, "R").union(tagged(late.map(p -> p.src).returns(Types.INT), "L"),
                tagged(bad.map(r -> r.reason).returns(Types.STRING), "B"))
                .executeAndCollect("hh batches").forEachRemaining(all::add);
        assertThat(all).filteredOn(s -> s.startsWith("R")).hasSize(5);
        assertThat(all).filteredOn(s -> s.startsWith("B")).hasSize(1);
    }

    @Test
    void flowMeterMd() throws Exception {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(1);
        DataStream<Packet> source = env.fromData(samplePackets(), TypeInformation.of(Packet.class));

        FlowMeter<Packet, String> meter = FlowMeter.<Packet>builder()
                .scope(p -> p.link, Types.STRING)
                .packets((p, sink) -> sink.ipv4(p.src, p.dst, p.srcPort, p.dstPort, p.protocol))
                .bytes(p -> p.length)
                .tcpFlags(p -> p.flags)
                .capacity(100_000)                       // flows per scope
                .idleTimeout(Duration.ofSeconds(15))
                .activeTimeout(Duration.ofMinutes(30))
                .build();                                // configuration errors are thrown here

        DataStream<Packet> packets = source.assignTimestampsAndWatermarks(
                WatermarkStrategy.<Packet>forBoundedOutOfOrderness(Duration.ofSeconds(1))
                        .withTimestampAssigner((p, t) -> p.timestampMillis));
        SingleOutputStreamOperator<MeteredFlow<String>> flows = meter.apply(packets).uid("flow-meter");
        DataStream<Rejected<Packet>> malformed = flows.getSideOutput(meter.malformedTag(packets.getType()));

        List<String> all = new ArrayList<>();
        tagged(flows.map(f -> f.reason + " " + f.packets + " " + f.bytes + " " + f.tcpFlags).returns(Types.STRING), "F")
                .union(tagged(malformed.map(r -> r.reason).returns(Types.STRING), "B"))
                .executeAndCollect("fm").forEachRemaining(all::add);
        assertThat(all).contains("F FLUSHED 60 6000 16").filteredOn(s -> s.startsWith("F")).hasSize(41);
        assertThat(all).filteredOn(s -> s.startsWith("B")).hasSize(1);
    }

    @Test
    void flowMeterMdBatches() throws Exception {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(1);
        Batch b1 = new Batch();
        b1.link = "north";
        b1.packets.addAll(samplePackets());
        DataStream<Batch> batches = env.fromData(List.of(b1), TypeInformation.of(Batch.class));
        TypeInformation<Packet> packetType = TypeInformation.of(Packet.class);
        // (PacketBatch of the doc = Batch here)

        // PacketBatch: one observation point's packets; Packet: one packet (the builder's selectors stay on Packet)
        FlowMeter<Packet, String> meter = FlowMeter.<Packet>builder()
                .scope(p -> p.link, Types.STRING)              // not used by applyToBatches: batchScope is
                .packets((p, sink) -> sink.ipv4(p.src, p.dst, p.srcPort, p.dstPort, p.protocol))
                .bytes(p -> p.length)
                .timestamps(p -> p.timestampMillis)            // each packet's own time (else the batch's Flink timestamp)
                .capacity(100_000)
                .build();
        ElementsOf<Batch, Packet> elements = (batch, each) -> {
            for (int i = 0; i < batch.size(); i++) {
                each.accept(batch.packet(i));                  // may hand over one reused Packet object
            }
        };
        SingleOutputStreamOperator<MeteredFlow<String>> flows =
                meter.applyToBatches(batches, b -> b.link, elements, packetType).uid("flow-meter");
        DataStream<Rejected<Packet>> badPackets = flows.getSideOutput(meter.malformedTag(packetType));
        DataStream<Rejected<Batch>> badBatches = flows.getSideOutput(meter.malformedBatchesTag(batches.getType()));

        List<String> all = new ArrayList<>();
        tagged(flows, "F").union(tagged(badPackets.map(r -> r.reason).returns(Types.STRING), "B"),
                        tagged(badBatches.map(r -> r.reason).returns(Types.STRING), "X"))
                .executeAndCollect("fm batches").forEachRemaining(all::add);
        assertThat(all).filteredOn(s -> s.startsWith("F")).hasSize(41);
        assertThat(all).filteredOn(s -> s.startsWith("B")).hasSize(1);
    }

    // ---- count-min.md

    public static class CmPacket {
        public String link;
        public FiveTuple tuple;
        public long bytes;
        public long time;

        public CmPacket() {
        }

        static CmPacket of(String link, int src, long bytes, long time) {
            CmPacket p = new CmPacket();
            p.link = link;
            p.tuple = FiveTuple.ipv4(src, 2, 3, 4, 6);
            p.bytes = bytes;
            p.time = time;
            return p;
        }
    }

    public static class Lookup {
        public String link;
        public FiveTuple tuple;

        public Lookup() {
        }
    }

    @Test
    void countMinQueriesMd() throws Exception {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(1);
        DataStream<CmPacket> packets = env.fromData(List.of(CmPacket.of("a", 1, 10, 0), CmPacket.of("a", 1, -2, 0)),
                TypeInformation.of(CmPacket.class));
        Lookup l = new Lookup();
        l.link = "b";
        l.tuple = FiveTuple.ipv4(1, 2, 3, 4, 6);
        DataStream<Lookup> lookups = env.fromData(List.of(l), TypeInformation.of(Lookup.class));

        CountMinQueries<CmPacket, Lookup, String> cm = CountMinQueries.<CmPacket, Lookup, String>builder()
                .scope(p -> p.link, Types.STRING)
                .item(ItemSelector.fiveTuples(p -> p.tuple)).weight(p -> p.bytes)
                .queryScope(q -> q.link).queryItem(ItemSelector.fiveTuples(q -> q.tuple))
                .errors(0.001, 0.001).seed(42)
                .build();                                       // validates everything, before env.execute()
        SingleOutputStreamOperator<CountMinEstimate<String, Lookup>> answers = cm.apply(packets, lookups);
        DataStream<Rejected<CmPacket>> badPackets = answers.getSideOutput(cm.malformedUpdates(packets.getType()));
        DataStream<Rejected<Lookup>> badLookups = answers.getSideOutput(cm.malformedQueries(lookups.getType()));

        List<String> all = new ArrayList<>();
        tagged(answers.map(a -> a.scope + " " + a.estimate + " " + a.totalWeight).returns(Types.STRING), "E")
                .union(tagged(badPackets.map(r -> r.reason).returns(Types.STRING), "B"),
                        tagged(badLookups.map(r -> r.reason).returns(Types.STRING), "Q"))
                .executeAndCollect("cmq").forEachRemaining(all::add);
        assertThat(all).containsExactlyInAnyOrder("E b 0 0", "B weight must be ≥ 0, got -2");
        assertThat(cm.sizing().toString()).isNotEmpty();
    }

    @Test
    void countMinAggregateMd() throws Exception {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(1);
        DataStream<CmPacket> packets = env.fromData(List.of(CmPacket.of("a", 1, 10, 0), CmPacket.of("a", 1, 5, 10),
                        CmPacket.of("a", 2, -1, 20), CmPacket.of("b", 3, 7, 30)), TypeInformation.of(CmPacket.class))
                .assignTimestampsAndWatermarks(WatermarkStrategy.<CmPacket>forMonotonousTimestamps()
                        .withTimestampAssigner((p, t) -> p.time));
        List<FiveTuple> watchList = List.of(FiveTuple.ipv4(1, 2, 3, 4, 6));

        CountMinAggregate<CmPacket> cm = CountMinAggregate.<CmPacket>builder()
                .item(ItemSelector.fiveTuples(p -> p.tuple)).weight(p -> p.bytes)
                .memory(65536, 4).seed(42)
                .build();
        SingleOutputStreamOperator<CmPacket> clean = cm.screen(packets);        // malformed records to a side output
        KeyedStream<CmPacket, String> byLink = clean.keyBy(p -> p.link, Types.STRING);
        WindowedStream<CmPacket, String, TimeWindow> minutes = byLink.window(TumblingEventTimeWindows.of(Duration.ofMinutes(1)));

        DataStream<WindowSketch<String>> sketches = cm.sketchesOf(minutes, byLink.getKeyType());   // key, window, sketch
        DataStream<CountMinSketch> bare = cm.applyTo(minutes);                                       // just the sketches
        DataStream<WindowEstimate<String, FiveTuple>> watched =
                cm.estimatesOf(minutes, byLink.getKeyType(), ItemSelector.fiveTuples(t -> t), watchList,
                        FiveTupleTypeInfo.INSTANCE);   // watchList: a List<FiveTuple> (FiveTuple is Serializable)

        DataStream<String> totals = minutes.aggregate(cm,
                (String link, TimeWindow w, Iterable<CountMinSketch> in, Collector<String> out) ->
                        out.collect(link + " " + w.getStart() + " N=" + in.iterator().next().totalWeight()),
                cm.accumulatorType(), Types.STRING);

        List<String> all = new ArrayList<>();
        tagged(sketches.map(s -> s.scope + " " + s.sketch.width() + "x" + s.sketch.depth() + " " + s.sketch.totalWeight())
                        .returns(Types.STRING), "S")
                .union(tagged(bare.map(s -> s.totalWeight()).returns(Types.LONG), "C"),
                        tagged(watched.map(w -> w.scope + " " + w.estimate + " " + w.totalWeight).returns(Types.STRING), "W"),
                        tagged(clean.getSideOutput(cm.malformed(packets.getType())).map(r -> r.reason)
                                .returns(Types.STRING), "B"),
                        tagged(totals, "T"))
                .executeAndCollect("cma").forEachRemaining(all::add);
        assertThat(all).containsExactlyInAnyOrder("S a 2039x4 15", "S b 2039x4 7", "C 15", "C 7", "W a 15 15",
                "W b 0 7", "B weight must be ≥ 0, got -1", "T a 0 N=15", "T b 0 N=7");
    }

    // ---- dedup.md

    public static class Event {
        public String tenant;
        public String eventId;
        public long time;

        public Event() {
        }

        static Event of(String tenant, String id, long time) {
            Event e = new Event();
            e.tenant = tenant;
            e.eventId = id;
            e.time = time;
            return e;
        }
    }

    @Test
    void dedupMd() throws Exception {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(1);
        DataStream<Event> events = env.fromData(List.of(Event.of("t", "a", 1), Event.of("t", "b", 2),
                Event.of("t", "a", 3), Event.of("u", "a", 4), Event.of("t", null, 5)), TypeInformation.of(Event.class));

        Deduplicator<Event, String> dedup = Deduplicator.<Event, String>builder()
                .scope(e -> e.tenant)                        // the Flink key; scope(selector, typeInfo) if not extractable
                .item(ItemSelector.strings(e -> e.eventId))  // what identifies a record (longs, strings, bytes, 5-tuples)
                .horizon(Duration.ofMinutes(10))
                .eventTime()                                 // or .processingTime()
                .timestamps(e -> e.time)                     // optional (event time): each record's own time
                .expectedRate(1_000)                         // DISTINCT items per second per key (not records)
                .fpp(1e-3)                                   // P(a new item is flagged), over the whole horizon
                .generations(4)                              // optional, default 4
                .seed(secretSeed)                            // optional, default ItemHasher.DEFAULT_SEED
                .memoryBudget(4L << 20)                      // optional: fail the build if a key needs more
                .build();                                    // validates, derives the sizes (dedup.sizing())

        DedupStreams<Event> out = dedup.apply(events);       // keyBy(scope) + the operator
        out.firstOccurrences();   // SingleOutputStreamOperator<Event>: set uid / parallelism here
        out.duplicates();         // DataStream<Event>, side output "duplicates"
        out.malformed();          // DataStream<Rejected<Event>>, side output "malformed" (record + reason)

        List<String> all = new ArrayList<>();
        tagged(out.firstOccurrences().map(e -> e.tenant + e.eventId + e.time).returns(Types.STRING), "F")
                .union(tagged(out.duplicates().map(e -> e.tenant + e.eventId + e.time).returns(Types.STRING), "D"),
                        tagged(out.malformed().map(r -> r.reason).returns(Types.STRING), "M"))
                .executeAndCollect("dedup").forEachRemaining(all::add);
        assertThat(all).filteredOn(s -> !s.startsWith("M"))
                .containsExactlyInAnyOrder("F ta1", "F tb2", "D ta3", "F ua4");
        assertThat(all).filteredOn(s -> s.startsWith("M")).hasSize(1);
    }

    public record DPacket(int link, long flowId, long timeMillis) implements java.io.Serializable {
    }

    public static class PacketBatch {
        public int link;
        public List<DPacket> packets = new ArrayList<>();

        public PacketBatch() {
        }

        public int link() {
            return link;
        }

        public void forEachPacket(Consumer<? super DPacket> each) {
            packets.forEach(each);
        }
    }

    @Test
    void dedupMdBatches() throws Exception {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(1);
        PacketBatch b = new PacketBatch();
        b.link = 3;
        b.packets.addAll(List.of(new DPacket(3, 1, 10), new DPacket(3, 2, 20), new DPacket(3, 1, 30)));
        DataStream<PacketBatch> batches = env.fromData(List.of(b), TypeInformation.of(PacketBatch.class));
        TypeInformation<DPacket> packetTypeInfo = TypeInformation.of(DPacket.class);

        Deduplicator<DPacket, Integer> dedup = Deduplicator.<DPacket, Integer>builder()
                .scope(DPacket::link)                         // selectors stay over the ELEMENT type
                .item(ItemSelector.longs(DPacket::flowId))
                .horizon(Duration.ofSeconds(10)).eventTime()
                .timestamps(DPacket::timeMillis)              // each element's own time (else the batch record's timestamp)
                .expectedRate(100_000).fpp(0.01)             // distinct flows per second per link
                .build();

        DedupStreams<DPacket> out = dedup.applyToBatches(
                batches,                                     // DataStream<PacketBatch>
                PacketBatch::link,                           // the batch's scope: the Flink key
                (batch, each) -> batch.forEachPacket(each),  // ElementsOf<PacketBatch, Packet>
                packetTypeInfo);                             // TypeInformation<Packet> of the outputs
        out.firstOccurrences();   // DataStream of Packet: first-occurrence ELEMENTS
        out.duplicates();         // Packet elements flagged as probable duplicates
        out.malformed();          // Rejected<Packet>: elements without item or time

        List<String> all = new ArrayList<>();
        tagged(out.firstOccurrences().map(p -> p.flowId()).returns(Types.LONG), "F")
                .union(tagged(out.duplicates().map(p -> p.flowId()).returns(Types.LONG), "D"))
                .executeAndCollect("dedup batches").forEachRemaining(all::add);
        assertThat(all).containsExactlyInAnyOrder("F 1", "F 2", "D 1");
    }
    /** flow-meter.md: "apply(stream) is stream.keyBy(scope).process(meter.function(type), meter.outputType())". */
    @Test
    void flowMeterMdHandWiring() throws Exception {
        for (String backend : List.of("hashmap", "rocksdb")) {
            org.apache.flink.configuration.Configuration conf = new org.apache.flink.configuration.Configuration();
            conf.setString("state.backend.type", backend);
            StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
            env.setParallelism(1);
            env.enableCheckpointing(50);
            DataStream<Packet> packets = packets(env, samplePackets());
            FlowMeter<Packet, String> meter = FlowMeter.<Packet>builder()
                    .scope(p -> p.link, Types.STRING)
                    .packets((p, sink) -> sink.ipv4(p.src, p.dst, p.srcPort, p.dstPort, p.protocol))
                    .bytes(p -> p.length).capacity(1000).build();
            SingleOutputStreamOperator<MeteredFlow<String>> flows = packets.keyBy(p -> p.link, Types.STRING)
                    .process(meter.function(packets.getType()), meter.outputType());
            List<String> all = new ArrayList<>();
            tagged(flows.map(f -> f.reason + " " + f.packets + " " + f.bytes).returns(Types.STRING), "F")
                    .union(tagged(flows.getSideOutput(meter.malformedTag(packets.getType())).map(r -> r.reason)
                            .returns(Types.STRING), "B"))
                    .executeAndCollect("fm hand").forEachRemaining(all::add);
            assertThat(all).as(backend).contains("F FLUSHED 60 6000").filteredOn(x -> x.startsWith("F")).hasSize(41);
        }
    }
    /**
     * flow-meter.md said "apply(stream) is stream.keyBy(scope).process(meter.function(type), meter.outputType())";
     * apply builds keyBy(scope).transform("flow-meter", outputType, WriteBackOperator(function)): the write-back
     * hook (the RocksDB state cache) that, as the same page says further down, hand-wired process(..) lacks.
     */
    @Test
    void flowMeterMdDescribesWhatApplyBuilds() throws Exception {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        DataStream<Packet> packets = packets(env, samplePackets());
        FlowMeter<Packet, String> meter = FlowMeter.<Packet>builder()
                .scope(p -> p.link, Types.STRING)
                .packets((p, sink) -> sink.ipv4(p.src, p.dst, p.srcPort, p.dstPort, p.protocol))
                .bytes(p -> p.length).capacity(1000).build();
        SingleOutputStreamOperator<MeteredFlow<String>> applied = meter.apply(packets);
        var t = (org.apache.flink.streaming.api.transformations.OneInputTransformation<?, ?>) applied.getTransformation();
        assertThat(t.getOperator()).isInstanceOf(io.linerate.flink.state.WriteBackOperator.class);
        assertThat(applied.getName()).isEqualTo("flow-meter");

        String doc = java.nio.file.Files.readString(java.nio.file.Path.of("..", "docs", "operators", "flow-meter.md"));
        String sentence = doc.substring(doc.indexOf("`apply(stream)` is"), doc.indexOf("use\n`meter.function(inputType)`"));
        assertThat(sentence).as("what flow-meter.md says apply builds").contains("transform(\"flow-meter\"")
                .contains("WriteBackOperator").doesNotContain(".process(");
    }
}
