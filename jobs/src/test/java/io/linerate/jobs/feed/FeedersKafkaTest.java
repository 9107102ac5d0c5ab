package io.linerate.jobs.feed;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import io.linerate.jobs.cli.Main;
import io.linerate.jobs.format.PacketBatch;
import io.linerate.jobs.format.PacketRecord;
import io.linerate.jobs.kafka.KafkaBrokerExtension;
import io.linerate.jobs.local.FeedContext;

/**
 * Both feeders against the real (embedded) broker: what they write is read back with {@code read_committed}, decoded,
 * and compared with what the test knows independently — the packets of a capture it wrote byte for byte, or the
 * distributions the generator promises, checked within binomial bounds: a count X ~ Bin(n, p) lies within
 * n·p ± 4·√(n·p·(1−p)) with probability > 0.9999 (Chebyshev would give ≥ 15/16; the normal approximation 6·10⁻⁵).
 */
class FeedersKafkaTest {

    @RegisterExtension
    static final KafkaBrokerExtension KAFKA = new KafkaBrokerExtension();

    private static final AtomicInteger TOPICS = new AtomicInteger();

    @TempDir
    Path dir;

    private static String topic(int partitions) {
        String name = "feed-" + TOPICS.incrementAndGet();
        KAFKA.broker().createTopic(name, partitions);
        return name;
    }

    private static FeedSummary generate(SyntheticTraffic traffic, String topic) throws Exception {
        return traffic.run(KAFKA.bootstrapServers(), topic, () -> false, n -> { });
    }

    private static void assertBinomial(String what, long count, long n, double p) {
        double mean = n * p;
        double bound = 4 * Math.sqrt(n * p * (1 - p));
        assertThat((double) count).as("%s: %d of %d, expected %.1f ± %.1f", what, count, n, mean, bound)
                .isBetween(mean - bound, mean + bound);
    }

    private static String flow(PacketRecord p) {
        return p.isIpv6() + "/" + p.srcHigh() + ":" + p.srcLow() + "/" + p.dstHigh() + ":" + p.dstLow() + "/"
                + p.srcPort() + "/" + p.dstPort() + "/" + p.protocol();
    }

    private static int ipv4(int a, int b, int c, int d) {
        return a << 24 | b << 16 | c << 8 | d;
    }

    // ------------------------------------------------------------------ generate

    @Test
    void generateIsReproducibleFromItsSeedAndCarriesTheRequestedCountsAndSkew() throws Exception {
        int n = 30_000;
        int flows = 1000;
        double skew = 1.1;
        SyntheticTraffic.Builder b = SyntheticTraffic.builder().count(n).batchSize(700).flows(flows).skew(skew)
                .observationPoints(3).ipv6Share(0.25);
        String first = topic(2);
        String again = topic(2);
        String other = topic(2);
        FeedSummary summary = generate(b.seed(7).build(), first);
        generate(b.seed(7).build(), again);
        generate(b.seed(8).build(), other);

        List<RawTopic.Raw> a = RawTopic.read(KAFKA.bootstrapServers(), first);
        List<RawTopic.Raw> a2 = RawTopic.read(KAFKA.bootstrapServers(), again);
        List<RawTopic.Raw> c = RawTopic.read(KAFKA.bootstrapServers(), other);
        assertThat(a).hasSize(43); // ceil(30000 / 700)
        assertThat(summary.units()).isEqualTo(n);
        assertThat(summary.records()).isEqualTo(43);
        // event time: the default start, then one packet per 1/eventRate s
        SyntheticTraffic t = b.seed(7).build();
        assertThat(summary.firstEventMillis()).isEqualTo(t.start);
        assertThat(summary.lastEventMillis()).isEqualTo(t.start + (long) ((n - 1) * 1000.0 / t.eventRate));
        assertThat(summary.describe("packets", "batches")).contains(", event time 2026-01-01T00:00:00Z to ");
        for (int i = 0; i < a.size(); i++) {
            assertThat(a2.get(i).partition()).isEqualTo(a.get(i).partition());
            assertThat(a2.get(i).key()).isEqualTo(a.get(i).key());
            assertThat(a2.get(i).value()).as("record %d, same seed", i).isEqualTo(a.get(i).value());
        }
        assertThat(c).hasSameSizeAs(a);
        long differing = 0;
        for (int i = 0; i < a.size(); i++) {
            differing += java.util.Arrays.equals(a.get(i).value(), c.get(i).value()) ? 0 : 1;
        }
        assertThat(differing).as("records that differ with another seed").isEqualTo(a.size());

        // every batch holds one observation point, the record's key; batches go round-robin over 0, 1, 2
        Map<Integer, Integer> batchesPerPoint = new HashMap<>();
        Map<Integer, Set<Integer>> partitionsPerPoint = new HashMap<>();
        for (RawTopic.Raw r : a) {
            PacketBatch batch = r.batch();
            assertThat(batch.size()).isBetween(1, 700);
            assertThat(r.keyText()).isEqualTo(Integer.toString(batch.observationPoint()));
            batchesPerPoint.merge(batch.observationPoint(), 1, Integer::sum);
            partitionsPerPoint.computeIfAbsent(batch.observationPoint(), k -> new HashSet<>()).add(r.partition());
        }
        assertThat(batchesPerPoint).containsOnlyKeys(0, 1, 2);
        assertThat(batchesPerPoint.values()).allSatisfy(k -> assertThat(k).isBetween(14, 15));
        assertThat(partitionsPerPoint.values()).as("a scope's batches in one partition").allSatisfy(
                s -> assertThat(s).hasSize(1));

        List<PacketRecord> packets = RawTopic.packets(a);
        assertThat(packets).hasSize(n);
        // event time: 10000 packets per second of event time from 2026-01-01T00:00:00Z
        long[] timestamps = packets.stream().mapToLong(PacketRecord::timestamp).sorted().toArray();
        assertThat(timestamps[0]).isEqualTo(1_767_225_600_000L);
        assertThat(timestamps[n - 1]).isEqualTo(1_767_225_600_000L + (n - 1) / 10);

        // Zipf: the top flow carries 1 / H(flows, s) of the packets, H(n, s) = sum_{k=1..n} k^-s
        Map<String, Long> perFlow = new HashMap<>();
        long v6 = 0;
        for (PacketRecord p : packets) {
            perFlow.merge(flow(p), 1L, Long::sum);
            v6 += p.isIpv6() ? 1 : 0;
        }
        double h = 0;
        for (int k = 1; k <= flows; k++) {
            h += Math.pow(k, -skew);
        }
        List<Long> counts = new ArrayList<>(perFlow.values());
        counts.sort(java.util.Comparator.reverseOrder());
        assertThat(perFlow.size()).isLessThanOrEqualTo(flows);
        assertBinomial("packets of the top flow", counts.get(0), n, 1 / h);
        assertBinomial("packets of the second flow", counts.get(1), n, Math.pow(2, -skew) / h);
        assertThat(v6).as("IPv6 packets: some flows are IPv6").isPositive().isLessThan(n);
    }

    @Test
    void theInjectedHeavyHitterCarriesItsShareFromItsStartTime() throws Exception {
        int n = 20_000;
        String t = topic(1);
        generate(SyntheticTraffic.builder().seed(3).count(n).flows(5000).skew(0.8).observationPoints(1)
                .heavyHitterShare(0.25).injectAfter(java.time.Duration.ofSeconds(1)).eventRate(10_000).build(), t);
        List<PacketRecord> packets = RawTopic.packets(RawTopic.read(KAFKA.bootstrapServers(), t));
        long injectFrom = SyntheticTraffic.DEFAULT_START + 1000;
        long before = 0;
        long after = 0;
        long heavyBefore = 0;
        long heavyAfter = 0;
        for (PacketRecord p : packets) {
            boolean heavy = !p.isIpv6() && p.srcIpv4() == ipv4(172, 16, 0, 1) && p.dstIpv4() == ipv4(192, 168, 200, 1)
                    && p.srcPort() == 40_000 && p.dstPort() == 443 && p.protocol() == 6;
            if (p.timestamp() < injectFrom) {
                before++;
                heavyBefore += heavy ? 1 : 0;
            } else {
                after++;
                heavyAfter += heavy ? 1 : 0;
            }
        }
        assertThat(before).isEqualTo(10_000);
        assertThat(heavyBefore).isZero();
        assertBinomial("heavy-hitter packets after its start", heavyAfter, after, 0.25);
    }

    @Test
    void aSynFloodIsManyFlowsToOneDestination() throws Exception {
        int n = 10_000;
        String t = topic(1);
        generate(SyntheticTraffic.builder().seed(5).count(n).observationPoints(1)
                .attack(SyntheticTraffic.Attack.SYN_FLOOD).attackShare(0.3).build(), t);
        long syns = 0;
        Set<String> flows = new HashSet<>();
        for (PacketRecord p : RawTopic.packets(RawTopic.read(KAFKA.bootstrapServers(), t))) {
            if (!p.isIpv6() && p.dstIpv4() == ipv4(192, 168, 250, 80) && p.dstPort() == 80) {
                assertThat(p.tcpFlags()).isEqualTo(0x02);
                syns++;
                flows.add(flow(p));
            }
        }
        assertBinomial("SYN flood packets", syns, n, 0.3);
        assertThat(flows.size()).as("distinct flows of the flood").isGreaterThan((int) (0.95 * syns));
    }

    @Test
    void eventsCarryTheRequestedDuplicateRatioKeyedByTheirScope() throws Exception {
        int n = 20_000;
        double ratio = 0.2;
        String t = topic(2);
        FeedSummary s = generate(SyntheticTraffic.builder().format(SyntheticTraffic.Format.EVENTS).seed(11).count(n)
                .duplicateRatio(ratio).duplicateWindow(500).tenants(3).eventRate(1000).build(), t);
        assertThat(s.units()).isEqualTo(n);
        ObjectMapper json = new ObjectMapper();
        Set<String> seen = new HashSet<>();
        long duplicates = 0;
        Set<String> tenants = new HashSet<>();
        long lastTs = -1;
        List<RawTopic.Raw> records = RawTopic.read(KAFKA.bootstrapServers(), t);
        assertThat(records).hasSize(n);
        for (RawTopic.Raw r : records) {
            JsonNode e = json.readTree(r.value());
            assertThat(e.size()).isEqualTo(3);
            String tenant = e.get("tenant").textValue();
            assertThat(r.keyText()).isEqualTo(tenant);
            tenants.add(tenant);
            assertThat(e.get("id").textValue()).hasSize(16);
            assertThat(e.get("ts").isIntegralNumber()).isTrue();
            lastTs = Math.max(lastTs, e.get("ts").longValue());
            if (!seen.add(tenant + "/" + e.get("id").textValue())) {
                duplicates++;
            }
        }
        assertThat(tenants).containsExactlyInAnyOrder("tenant-0", "tenant-1", "tenant-2");
        assertThat(lastTs).isEqualTo(SyntheticTraffic.DEFAULT_START + n - 1); // 1000 events per second of event time
        // the first event cannot repeat one: n − 1 trials
        assertBinomial("duplicate events", duplicates, n - 1, ratio);
    }

    @Test
    void generateHoldsItsRateAndStopsAsAFeeder() throws Exception {
        String t = topic(1);
        SyntheticTraffic paced = SyntheticTraffic.builder().count(3000).batchSize(100).rate(2000).build();
        long begin = System.nanoTime();
        generate(paced, t);
        double seconds = (System.nanoTime() - begin) / 1e9;
        assertThat(seconds).as("3000 packets at 2000/s").isBetween(1.3, 10.0);
        // a record goes when its last unit is due (unit k at k / rate s): two events at 1/s take 1 s, not 2
        begin = System.nanoTime();
        generate(SyntheticTraffic.builder().format(SyntheticTraffic.Format.EVENTS).count(2).rate(1).build(), t);
        seconds = (System.nanoTime() - begin) / 1e9;
        assertThat(seconds).as("2 events at 1/s").isBetween(0.99, 1.8);

        // the demo's way: unbounded, stopped from another thread; what it counted is what the topic holds
        String fed = topic(1);
        SyntheticTraffic endless = SyntheticTraffic.builder().count(0).batchSize(50).rate(5000).build();
        FeedContext context = new FeedContext(KAFKA.bootstrapServers(), fed);
        Thread feeder = new Thread(() -> {
            try {
                endless.feed(context);
            } catch (Exception e) {
                throw new RuntimeException(e);
            }
        });
        feeder.start();
        // stopped while it feeds: once it has sent something (a fixed 0.7 s wait before)
        long deadline = System.nanoTime() + 30_000_000_000L;
        while (context.sentCount() == 0 && feeder.isAlive() && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        assertThat(context.sentCount()).as("records sent before the stop").isPositive();
        context.requestStop();
        feeder.join(10_000);
        assertThat(feeder.isAlive()).isFalse();
        assertThat(endless.description()).contains("until stopped");
        long inTopic = RawTopic.packets(RawTopic.read(KAFKA.bootstrapServers(), fed)).size();
        assertThat(context.sentCount()).isPositive().isEqualTo(inTopic);
    }

    // ------------------------------------------------------------------ replay

    @Test
    void replayWritesExactlyThePacketsOfTheCaptureAndLoopsWithShiftedTimestamps() throws Exception {
        List<Captures.Packet> written = Captures.packets(200, 1_700_000_000_123_456L, 2_345);
        Path pcap = dir.resolve("trace.pcap");
        int arps = Captures.writePcap(pcap, written, 40);
        String once = topic(2);
        FeedSummary s1 = PcapReplay.builder(List.of(pcap)).observationPoint(7).batchSize(64).build()
                .run(KAFKA.bootstrapServers(), once, () -> false, n -> { });
        List<RawTopic.Raw> records = RawTopic.read(KAFKA.bootstrapServers(), once);
        List<PacketRecord> expected = new ArrayList<>();
        for (Captures.Packet p : written) {
            expected.add(p.expected(7, 0));
        }
        assertThat(RawTopic.packets(records)).containsExactlyElementsOf(expected);
        assertThat(records).hasSize(4).allSatisfy(r -> assertThat(r.keyText()).isEqualTo("7"));
        assertThat(s1.units()).isEqualTo(200);
        assertThat(s1.records()).isEqualTo(4);
        assertThat(s1.skipped()).containsExactly(Map.entry("NOT_IP", (long) arps));
        assertThat(arps).isEqualTo(5);

        String twice = topic(1);
        FeedSummary s2 = PcapReplay.builder(List.of(pcap)).observationPoint(7).loops(2).build()
                .run(KAFKA.bootstrapServers(), twice, () -> false, n -> { });
        long firstMs = written.get(0).micros() / 1000;
        long lastMs = written.get(written.size() - 1).micros() / 1000;
        long shift = lastMs - firstMs + 1;
        for (Captures.Packet p : written) {
            expected.add(p.expected(7, shift));
        }
        assertThat(RawTopic.packets(RawTopic.read(KAFKA.bootstrapServers(), twice))).containsExactlyElementsOf(expected);
        assertThat(s2.units()).isEqualTo(400);
        assertThat(s2.skipped()).containsExactly(Map.entry("NOT_IP", 2L * arps));
        // event times: the capture's first packet, and the second pass's last (shifted) one
        assertThat(s1.firstEventMillis()).isEqualTo(firstMs);
        assertThat(s1.lastEventMillis()).isEqualTo(lastMs);
        assertThat(s2.firstEventMillis()).isEqualTo(firstMs);
        assertThat(s2.lastEventMillis()).isEqualTo(lastMs + shift);
    }

    @Test
    void replayOfAPcapngGivesEachInterfaceItsObservationPoint() throws Exception {
        replayPerInterface(60, 2);
    }

    /**
     * More interfaces than the replay keeps batches open for ({@code PcapReplay.MAX_OPEN_BATCHES}): the begun batches
     * are sent and memory stays bounded; every packet arrives, each observation point's in order.
     */
    @Test
    void replayOfAPcapngOfManyInterfacesKeepsEveryPacketInOrder() throws Exception {
        replayPerInterface(3 * 1500, 1500);
    }

    private void replayPerInterface(int packets, int interfaces) throws Exception {
        List<Captures.Packet> written = Captures.packets(packets, 1_600_000_000_000_000L, 1000);
        Path pcapng = dir.resolve(interfaces + "-interfaces.pcapng");
        Captures.writePcapNg(pcapng, written, interfaces);
        String t = topic(1);
        PcapReplay.builder(List.of(pcapng)).observationPoint(10).perInterface(true).build()
                .run(KAFKA.bootstrapServers(), t, () -> false, n -> { });
        Map<Integer, List<PacketRecord>> expected = new HashMap<>();
        for (int i = 0; i < written.size(); i++) {
            int op = 10 + i % interfaces;
            expected.computeIfAbsent(op, k -> new ArrayList<>()).add(written.get(i).expected(op, 0));
        }
        Map<Integer, List<PacketRecord>> actual = new HashMap<>();
        for (PacketRecord p : RawTopic.packets(RawTopic.read(KAFKA.bootstrapServers(), t))) {
            actual.computeIfAbsent(p.observationPoint(), k -> new ArrayList<>()).add(p);
        }
        assertThat(actual).isEqualTo(expected);
    }

    @Test
    void replayReadsAGzipCaptureAsThePlainOneAndCountsItsCompressedBytes() throws Exception {
        List<Captures.Packet> written = Captures.packets(300, 1_700_000_000_000_000L, 1000);
        Path pcap = dir.resolve("trace.pcap");
        int arps = Captures.writePcap(pcap, written, 7);
        Path gz = dir.resolve("trace.pcap.gz");
        try (var out = new java.util.zip.GZIPOutputStream(java.nio.file.Files.newOutputStream(gz))) {
            java.nio.file.Files.copy(pcap, out);
        }
        String t = topic(1);
        FeedSummary s = PcapReplay.builder(List.of(gz)).observationPoint(2).loops(2).build()
                .run(KAFKA.bootstrapServers(), t, () -> false, n -> { });
        long firstMs = written.get(0).micros() / 1000;
        long shift = written.get(written.size() - 1).micros() / 1000 - firstMs + 1;
        List<PacketRecord> expected = new ArrayList<>();
        for (long k = 0; k < 2; k++) {
            for (Captures.Packet p : written) {
                expected.add(p.expected(2, k * shift));
            }
        }
        assertThat(RawTopic.packets(RawTopic.read(KAFKA.bootstrapServers(), t))).containsExactlyElementsOf(expected);
        assertThat(s.skipped()).containsExactly(Map.entry("NOT_IP", 2L * arps));
        // progress and the summary count the file's own (compressed) bytes, not the capture's
        assertThat(java.nio.file.Files.size(gz)).isLessThan(java.nio.file.Files.size(pcap));
        assertThat(s.inputBytes()).isEqualTo(2 * java.nio.file.Files.size(gz));
    }

    @Test
    void replayReadsACaptureFromStandardInputOnce() throws Exception {
        List<Captures.Packet> written = Captures.packets(120, 1_700_000_000_000_000L, 1000);
        Path pcap = dir.resolve("piped.pcap");
        int arps = Captures.writePcap(pcap, written, 9);
        byte[] gz;
        try (var bytes = new ByteArrayOutputStream(); var out = new java.util.zip.GZIPOutputStream(bytes)) {
            java.nio.file.Files.copy(pcap, out);
            out.finish();
            gz = bytes.toByteArray();
        }
        String t = topic(1);
        var closed = new java.util.concurrent.atomic.AtomicBoolean();
        var stdin = new java.io.ByteArrayInputStream(gz) {
            @Override
            public void close() {
                closed.set(true);
            }
        };
        // standard input between two files: read in its turn
        FeedSummary s = PcapReplay.builder(List.of(pcap, PcapReplay.STANDARD_INPUT, pcap)).observationPoint(4)
                .batchSize(50).standardInput(stdin).build().run(KAFKA.bootstrapServers(), t, () -> false, n -> { });
        List<PacketRecord> once = new ArrayList<>();
        for (Captures.Packet p : written) {
            once.add(p.expected(4, 0));
        }
        List<PacketRecord> expected = new ArrayList<>(once);
        expected.addAll(once);
        expected.addAll(once);
        assertThat(RawTopic.packets(RawTopic.read(KAFKA.bootstrapServers(), t))).containsExactlyElementsOf(expected);
        assertThat(s.skipped()).containsExactly(Map.entry("NOT_IP", 3L * arps));
        assertThat(s.inputBytes()).isEqualTo(2 * java.nio.file.Files.size(pcap) + gz.length);
        assertThat(closed).isTrue();

        assertThatThrownBy(() -> PcapReplay.builder(List.of(PcapReplay.STANDARD_INPUT)).loops(2).build())
                .hasMessage("--loop must be 1 when a FILE is - (standard input is read once), got 2");
        assertThatThrownBy(() -> PcapReplay.builder(List.of(PcapReplay.STANDARD_INPUT, PcapReplay.STANDARD_INPUT)))
                .hasMessage("FILE - (standard input) can be given once, got [-, -]");
        StringWriter err = new StringWriter();
        var cl = Main.commandLine();
        cl.setErr(new PrintWriter(err));
        assertThat(cl.execute("replay", "--bootstrap-servers", KAFKA.bootstrapServers(), "--input-topic", t,
                "--loop", "2", "-")).isEqualTo(2);
        assertThat(err.toString()).contains("--loop must be 1 when a FILE is - (standard input is read once), got 2");
    }

    /** A live capture: the packets that arrived are sent while the replay waits for more, not when a batch fills. */
    @Test
    void replayOfAStandardInputThatPausesSendsWhatArrivedBeforeWaiting() throws Exception {
        List<Captures.Packet> written = Captures.packets(8, 1_700_000_000_000_000L, 1000);
        Path first = dir.resolve("first.pcap");
        Path rest = dir.resolve("rest.pcap");
        Captures.writePcap(first, written.subList(0, 5), 0);
        Captures.writePcap(rest, written.subList(5, 8), 0);
        byte[] restBytes = java.nio.file.Files.readAllBytes(rest);
        var pipeOut = new java.io.PipedOutputStream();
        var pipeIn = new java.io.PipedInputStream(pipeOut, 1 << 16);
        String t = topic(1);
        var replay = java.util.concurrent.CompletableFuture.supplyAsync(() -> {
            try {
                return PcapReplay.builder(List.of(PcapReplay.STANDARD_INPUT)).observationPoint(1).standardInput(pipeIn)
                        .build().run(KAFKA.bootstrapServers(), t, () -> false, n -> { });
            } catch (Exception e) {
                throw new java.util.concurrent.CompletionException(e);
            }
        });
        pipeOut.write(java.nio.file.Files.readAllBytes(first));
        pipeOut.flush();
        // the default batch of 1000 packets is far from full: only the idle flush can send these 5
        long deadline = System.nanoTime() + 30_000_000_000L;
        List<PacketRecord> seen = List.of();
        while (seen.size() < 5 && System.nanoTime() < deadline) {
            seen = RawTopic.packets(RawTopic.read(KAFKA.bootstrapServers(), t));
        }
        assertThat(replay).isNotDone();
        List<PacketRecord> expected = new ArrayList<>();
        for (Captures.Packet p : written) {
            expected.add(p.expected(1, 0));
        }
        assertThat(seen).as("sent while the pipe is open").containsExactlyElementsOf(expected.subList(0, 5));
        pipeOut.write(restBytes, 24, restBytes.length - 24); // the records only: one capture continues
        pipeOut.close();
        FeedSummary s = replay.get(60, java.util.concurrent.TimeUnit.SECONDS);
        assertThat(RawTopic.packets(RawTopic.read(KAFKA.bootstrapServers(), t))).containsExactlyElementsOf(expected);
        assertThat(s.units()).isEqualTo(8);
    }

    @Test
    void replayHoldsItsRateAndPrintsProgressLinesOffATerminal() throws Exception {
        List<Captures.Packet> written = Captures.packets(600, 1_700_000_000_000_000L, 100);
        Path pcap = dir.resolve("paced.pcap");
        Captures.writePcap(pcap, written, 0);
        String t = topic(1);
        ByteArrayOutputStream progress = new ByteArrayOutputStream();
        long begin = System.nanoTime();
        FeedSummary s = PcapReplay.builder(List.of(pcap)).rate(500).batchSize(50).terminal(false)
                .progressInterval(java.time.Duration.ofMillis(200))
                .progress(new PrintStream(progress, true, StandardCharsets.UTF_8)).build()
                .run(KAFKA.bootstrapServers(), t, () -> false, n -> { });
        double seconds = (System.nanoTime() - begin) / 1e9;
        assertThat(seconds).as("600 packets at 500/s").isBetween(1.0, 10.0);
        assertThat(s.units()).isEqualTo(600);
        String lines = progress.toString(StandardCharsets.UTF_8);
        assertThat(lines).doesNotContain("\r");
        assertThat(lines.lines().filter(l -> l.startsWith("replay: ") && l.contains("packets/s")).count())
                .as("progress lines in:%n%s", lines).isGreaterThanOrEqualTo(2);
        assertThat(lines).contains("%, ");

        // on a terminal: one bar redrawn with \r, ended by a newline
        ByteArrayOutputStream bar = new ByteArrayOutputStream();
        PcapReplay.builder(List.of(pcap)).rate(1500).terminal(true)
                .progress(new PrintStream(bar, true, StandardCharsets.UTF_8)).build()
                .run(KAFKA.bootstrapServers(), topic(1), () -> false, n -> { });
        String drawn = bar.toString(StandardCharsets.UTF_8);
        assertThat(drawn).startsWith("\r[").contains("packets/s").contains("ETA").endsWith(System.lineSeparator());
        assertThat(drawn.chars().filter(ch -> ch == '\n').count()).as(drawn).isEqualTo(1);
        assertThat(drawn.substring(drawn.lastIndexOf('\r'))).contains("100.0%").contains("600 packets");

        // at the capture's own pace: 600 packets 100 µs apart take about 60 ms of capture time; x0.1 → ~0.6 s
        String paced = topic(1);
        begin = System.nanoTime();
        PcapReplay.builder(List.of(pcap)).speed(0.1).build().run(KAFKA.bootstrapServers(), paced, () -> false, n -> { });
        seconds = (System.nanoTime() - begin) / 1e9;
        assertThat(seconds).as("the capture's 59.9 ms at speed 0.1").isBetween(0.5, 10.0);
        assertThat(RawTopic.packets(RawTopic.read(KAFKA.bootstrapServers(), paced))).hasSize(600);
    }

    // ------------------------------------------------------------------ command line

    @Test
    void theCommandsRunFromTheCommandLine() throws Exception {
        List<Captures.Packet> written = Captures.packets(30, 1_700_000_000_000_000L, 1000);
        Path pcap = dir.resolve("cli.pcap");
        Captures.writePcap(pcap, written, 0);
        String t = topic(1);
        StringWriter out = new StringWriter();
        var cl = Main.commandLine();
        cl.setOut(new PrintWriter(out));
        int code = cl.execute("replay", "--bootstrap-servers", KAFKA.bootstrapServers(), "--input-topic", t,
                "--observation-point", "3", pcap.toString());
        assertThat(code).isZero();
        String e = topic(1);
        code = Main.commandLine().execute("generate", "--bootstrap-servers", KAFKA.bootstrapServers(),
                "--input-topic", e, "--format", "events", "--count", "100", "--duplicate-ratio", "0.5");
        assertThat(code).isZero();
        assertThat(RawTopic.packets(RawTopic.read(KAFKA.bootstrapServers(), t))).hasSize(30)
                .allSatisfy(p -> assertThat(p.observationPoint()).isEqualTo(3));
        assertThat(RawTopic.read(KAFKA.bootstrapServers(), e)).hasSize(100);

        // a truncated capture: exit code 1, the file and the byte offset named, the packets before it sent and
        // counted with the records skipped before it (an ARP after every 5th packet; the cut is in the last ARP)
        Path withArps = dir.resolve("arps.pcap");
        assertThat(Captures.writePcap(withArps, written, 5)).isEqualTo(6);
        byte[] arpBytes = java.nio.file.Files.readAllBytes(withArps);
        Path cut = dir.resolve("cut.pcap");
        java.nio.file.Files.write(cut, java.util.Arrays.copyOf(arpBytes, arpBytes.length - 10));
        String c = topic(1);
        StringWriter err = new StringWriter();
        cl = Main.commandLine();
        cl.setErr(new PrintWriter(err));
        code = cl.execute("replay", "--bootstrap-servers", KAFKA.bootstrapServers(), "--input-topic", c,
                cut.toString());
        assertThat(code).isEqualTo(1);
        assertThat(err.toString()).contains("malformed capture " + cut + " at offset ")
                .contains("replay: before the error: 30 packets in ").contains("; skipped 5: NOT_IP 5");
        assertThat(RawTopic.packets(RawTopic.read(KAFKA.bootstrapServers(), c))).hasSize(30);

        // a capture of a link type that is not read: every record skipped, nothing sent, exit code 1
        byte[] wifi = java.nio.file.Files.readAllBytes(pcap);
        java.nio.ByteBuffer.wrap(wifi).order(java.nio.ByteOrder.LITTLE_ENDIAN).putInt(20, 105); // IEEE 802.11
        Path other = dir.resolve("wifi.pcap");
        java.nio.file.Files.write(other, wifi);
        err = new StringWriter();
        cl = Main.commandLine();
        cl.setErr(new PrintWriter(err));
        code = cl.execute("replay", "--bootstrap-servers", KAFKA.bootstrapServers(), "--input-topic", topic(1),
                other.toString());
        assertThat(code).isEqualTo(1);
        assertThat(err.toString()).contains("replay: no packet was sent: all 30 records of the capture were skipped");
    }

    /**
     * generate and replay to a topic that does not exist, on a broker that does not create topics on a write (the
     * embedded broker's auto.create.topics.enable=false): refused at once (exit code 1) naming the topic, the broker
     * setting, an existing topic with a close name and the command that creates it; nothing is written and no topic
     * is created. Before, the producer waited max.block.ms (60 s) and then failed with "Topic … not present in
     * metadata" (the test's timeout fails that).
     */
    @Test
    @org.junit.jupiter.api.Timeout(50)
    void aMissingTopicTheBrokerWillNotCreateIsRefusedBeforeAnythingIsWritten() throws Exception {
        KAFKA.broker().createTopic("fc-packets", 1);
        Path pcap = dir.resolve("missing.pcap");
        Captures.writePcap(pcap, Captures.packets(3, 1_700_000_000_000_000L, 1000), 0);
        String[][] commands = {
            {"generate", "--bootstrap-servers", KAFKA.bootstrapServers(), "--input-topic", "fc-pakets", "--count", "10"},
            {"replay", "--bootstrap-servers", KAFKA.bootstrapServers(), "--input-topic", "fc-pakets", pcap.toString()}};
        for (String[] args : commands) {
            StringWriter err = new StringWriter();
            StringWriter out = new StringWriter();
            var cl = Main.commandLine();
            cl.setErr(new PrintWriter(err));
            cl.setOut(new PrintWriter(out));
            long start = System.nanoTime();
            int code = cl.execute(args);
            double seconds = (System.nanoTime() - start) / 1e9;
            assertThat(code).as(args[0] + ": " + err).isEqualTo(1);
            assertThat(err.toString()).as(args[0]).startsWith(args[0] + ": nothing is written: input topic 'fc-pakets'"
                    + " does not exist on " + KAFKA.bootstrapServers() + ", and the broker does not create topics on a"
                    + " write (auto.create.topics.enable false, set on broker ")
                    .contains(args[0] + "'s producer would wait for it (max.block.ms, 60 s by default) and then fail")
                    .contains("Topics with a close name: 'fc-packets'.")
                    .contains("Create it first: kafka-topics.sh --bootstrap-server " + KAFKA.bootstrapServers()
                            + " --create --topic fc-pakets --partitions N.")
                    .doesNotContain("failed");
            assertThat(seconds).as(args[0] + " took %.1f s", seconds).isLessThan(30);
        }
        try (var admin = org.apache.kafka.clients.admin.Admin.create(
                Map.of("bootstrap.servers", KAFKA.bootstrapServers()))) {
            assertThat(admin.listTopics().names().get(30, java.util.concurrent.TimeUnit.SECONDS))
                    .contains("fc-packets").doesNotContain("fc-pakets");
        }
    }

    // ------------------------------------------------------------------ replay corner cases

    /**
     * A packet stamped before 1970 is skipped as NEGATIVE_TIMESTAMP in every pass, not only the first: the later
     * passes are the same capture shifted past the first, so they hold the same packets, and no packet of a later
     * pass lies within the first pass's event time (docs/feeding.md, "Looping").
     */
    @Test
    void aPacketBeforeNineteenSeventyIsSkippedInEveryPass() throws Exception {
        // if_tsoffset −1 s: the packets are at −0.5 s, 0 s and +2 s of epoch time
        Path file = dir.resolve("before-1970.pcapng");
        Captures.writePcapNg(file, Captures.udpAt(500_000, 1_000_000, 3_000_000), 1, -1);
        String t = topic(1);
        FeedSummary s = PcapReplay.builder(List.of(file)).loops(2).build()
                .run(KAFKA.bootstrapServers(), t, () -> false, n -> { });
        List<PacketRecord> sent = RawTopic.packets(RawTopic.read(KAFKA.bootstrapServers(), t));
        List<Long> times = new ArrayList<>();
        for (PacketRecord p : sent) {
            times.add(p.timestamp());
        }
        long shift = 2000 + 1; // span of the first pass (0 .. 2000 ms) + 1
        assertThat(times).as("event times of both passes").containsExactly(0L, 2000L, shift, 2000 + shift);
        assertThat(s.units()).isEqualTo(4);
        assertThat(s.skipped()).containsExactly(Map.entry(PcapReplay.NEGATIVE_TIMESTAMP, 2L));
    }

    /**
     * {@code --observation-point} + the interface id past {@link Integer#MAX_VALUE} wrapped to a negative observation
     * point, which the option itself refuses (it must be ≥ 0): such a packet cannot be given its observation point.
     */
    @Test
    void anObservationPointBeyondTheIntRangeIsNotWrappedToANegativeOne() throws Exception {
        Path file = dir.resolve("two-interfaces.pcapng");
        Captures.writePcapNg(file, Captures.udpAt(1_000_000, 1_000_001), 2, 0);
        String t = topic(1);
        FeedSummary s = PcapReplay.builder(List.of(file)).observationPoint(Integer.MAX_VALUE).perInterface(true)
                .build().run(KAFKA.bootstrapServers(), t, () -> false, n -> { });
        List<RawTopic.Raw> records = RawTopic.read(KAFKA.bootstrapServers(), t);
        assertThat(records).allSatisfy(r -> assertThat(Long.parseLong(r.keyText())).isNotNegative());
        assertThat(RawTopic.packets(records)).allSatisfy(p -> assertThat(p.observationPoint()).isNotNegative());
        assertThat(s.units()).isEqualTo(1);
        assertThat(s.skipped()).containsExactly(Map.entry(PcapReplay.OUT_OF_RANGE, 1L));
    }

    /** A rate below 1 packet/s was described as "at 0 packets/s". */
    @Test
    void aSlowRateIsDescribedAsItIs() throws Exception {
        Path file = dir.resolve("one.pcapng");
        Captures.writePcapNg(file, Captures.udpAt(1_000_000), 1, 0);
        assertThat(PcapReplay.builder(List.of(file)).rate(0.25).build().description())
                .contains("at 0.250 packets/s").doesNotContain("at 0 packets/s");
        assertThat(PcapReplay.builder(List.of(file)).rate(250_000).build().description())
                .contains("at 250000 packets/s");
    }
}
