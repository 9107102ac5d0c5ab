package io.linerate.jobs.feed;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;
import picocli.CommandLine;

import io.linerate.jobs.cli.Main;
import io.linerate.jobs.format.PacketBatch;
import io.linerate.jobs.format.PacketBatchCodec;
import io.linerate.jobs.format.PacketRecord;

/** The generator without Kafka: determinism, the Zipf table, settings checks, and the commands' options. */
class SyntheticTrafficTest {

    private static List<TrafficSource.Record> all(SyntheticTraffic t) {
        TrafficSource s = t.source();
        List<TrafficSource.Record> list = new ArrayList<>();
        for (TrafficSource.Record r; (r = s.next()) != null; ) {
            list.add(r);
        }
        return list;
    }

    /** Every packet of the records, in order (copies: a batch hands out one reused record). */
    private static List<PacketRecord> packets(List<TrafficSource.Record> records) throws Exception {
        List<PacketRecord> all = new ArrayList<>();
        for (TrafficSource.Record r : records) {
            PacketBatch b = PacketBatchCodec.decode(r.value());
            for (int i = 0; i < b.size(); i++) {
                all.add(b.get(i).copy());
            }
        }
        return all;
    }

    @Test
    void theSameSeedGivesTheSameRecordsAndAnotherSeedOthers() {
        for (SyntheticTraffic.Format format : SyntheticTraffic.Format.values()) {
            SyntheticTraffic.Builder b = SyntheticTraffic.builder().format(format).count(5000);
            if (format == SyntheticTraffic.Format.PACKETS) {
                b.batchSize(300).heavyHitterShare(0.1).attack(SyntheticTraffic.Attack.PORT_SCAN).ipv6Share(0.5);
            } else {
                b.duplicateRatio(0.3).tenants(7);
            }
            List<TrafficSource.Record> a = all(b.seed(42).build());
            List<TrafficSource.Record> again = all(b.seed(42).build());
            List<TrafficSource.Record> other = all(b.seed(43).build());
            assertThat(a).hasSize(format == SyntheticTraffic.Format.PACKETS ? 17 : 5000);
            assertThat(again).hasSameSizeAs(a);
            int same = 0;
            for (int i = 0; i < a.size(); i++) {
                assertThat(again.get(i).key()).isEqualTo(a.get(i).key());
                assertThat(again.get(i).value()).isEqualTo(a.get(i).value());
                same += java.util.Arrays.equals(other.get(i).value(), a.get(i).value()) ? 1 : 0;
            }
            assertThat(same).as(format + " records equal under another seed").isLessThan(a.size() / 100 + 1);
        }
    }

    @Test
    void aPortScanWalksThePortsOfOneHostAndTheWallClockStampsNow() throws Exception {
        int n = 4000;
        long before = System.currentTimeMillis();
        List<TrafficSource.Record> records = all(SyntheticTraffic.builder().seed(9).count(n).observationPoints(2)
                .attack(SyntheticTraffic.Attack.PORT_SCAN).attackShare(0.5).clock(SyntheticTraffic.Clock.WALL).build());
        long after = System.currentTimeMillis();
        int expectedPort = 1;
        long scans = 0;
        for (PacketRecord p : packets(records)) {
            assertThat(p.timestamp()).isBetween(before, after);
            if (!p.isIpv6() && p.dstIpv4() == 0xC0A8FA0A) { // 192.168.250.10
                assertThat(p.srcIpv4()).isEqualTo(0xC6336407); // 198.51.100.7
                assertThat(p.dstPort()).isEqualTo(expectedPort++);
                assertThat(p.tcpFlags()).isEqualTo(0x02);
                scans++;
            }
        }
        // Bin(4000, 0.5): 2000 ± 4·√1000
        assertThat((double) scans).isBetween(2000 - 4 * Math.sqrt(1000), 2000 + 4 * Math.sqrt(1000));
    }

    /**
     * The Zipf flows' TCP mix as docs/feeding.md gives it: SYN 2 %, FIN+ACK 1 %, PSH+ACK 10 %, half full-size, and
     * (one draw for both) SYN, FIN+ACK and PSH+ACK segments full-size. Shares within 4 binomial standard deviations.
     */
    @Test
    void theTcpMixHasTheDocumentedShares() throws Exception {
        int n = 200_000;
        List<TrafficSource.Record> records = all(SyntheticTraffic.builder().seed(5).count(n).ipv6Share(0.25).build());
        long tcp = 0;
        long syn = 0;
        long fin = 0;
        long push = 0;
        long full = 0;
        for (PacketRecord p : packets(records)) {
            if (p.protocol() != 6) {
                continue;
            }
            tcp++;
            int flags = p.tcpFlags();
            syn += flags == 0x02 ? 1 : 0;
            fin += flags == 0x11 ? 1 : 0;
            push += flags == 0x18 ? 1 : 0;
            full += p.length() == 1500 ? 1 : 0;
            if (flags != 0x10) {
                assertThat(p.length()).as("a segment with flags %s", flags).isEqualTo(1500);
            }
        }
        assertShare("SYN", syn, tcp, 0.02);
        assertShare("FIN+ACK", fin, tcp, 0.01);
        assertShare("PSH+ACK", push, tcp, 0.10);
        assertThat((double) full / tcp).as("full-size segments").isBetween(0.45, 0.55);
    }

    private static void assertShare(String what, long count, long total, double p) {
        double sd = Math.sqrt(total * p * (1 - p));
        assertThat((double) count).as(what).isBetween(total * p - 4 * sd, total * p + 4 * sd);
    }

    /** Event times stay within the jobs' formats (up to 9999-12-31T23:59:59.999Z) and batches within their span. */
    @Test
    void eventTimesStayWithinTheFormatsOrTheSettingsAreRefused() throws Exception {
        // a batch of 1000 at 0.0004 packets/s would span 2.5e9 ms, over a batch's 2^31 − 1
        assertThatThrownBy(() -> SyntheticTraffic.builder().count(1000).eventRate(0.0004).build())
                .hasMessageStartingWith("--event-rate 4.0E-4 is too slow for --batch-size 1000: a batch would span "
                        + "2497500000 ms of event time");
        assertThat(SyntheticTraffic.builder().count(1).batchSize(1).eventRate(0.0004).build()).isNotNull();
        // a count whose last one would be stamped after 9999
        assertThatThrownBy(() -> SyntheticTraffic.builder().format(SyntheticTraffic.Format.EVENTS).count(3)
                .eventRate(1e-300).build()).hasMessageStartingWith("--count 3 at --event-rate 1.0E-300 from --start");
        long lastMs = SyntheticTraffic.MAX_EVENT_TIME - 999;
        assertThatThrownBy(() -> SyntheticTraffic.builder().format(SyntheticTraffic.Format.EVENTS).count(20_000)
                .start(lastMs).build()).hasMessageContaining("would stamp the last one after 9999-12-31T23:59:59.999Z");
        // within the range: every event decodes with the jobs' format; unbounded, the stream ends at the range's end
        io.linerate.jobs.format.JsonEventFormat f = io.linerate.jobs.format.JsonEventFormat.builder().keyField("id")
                .timestampField("ts").build();
        // at 10,000 per second event k is stamped lastMs + ⌊k/10⌋: k ≤ 9,990 fit in the last 999 ms
        for (long count : new long[] {1000, 0}) {
            long expected = count == 0 ? 9_991 : count;
            List<TrafficSource.Record> events = all(SyntheticTraffic.builder().format(SyntheticTraffic.Format.EVENTS)
                    .count(count).start(lastMs).build());
            assertThat(events).as("count %d", count).hasSize((int) expected);
            for (TrafficSource.Record r : events) {
                assertThat(f.decode(r.value()).timestamp).isBetween(lastMs, SyntheticTraffic.MAX_EVENT_TIME);
            }
            List<TrafficSource.Record> batches = all(SyntheticTraffic.builder().count(count).batchSize(300)
                    .start(lastMs).build());
            assertThat(batches.stream().mapToLong(TrafficSource.Record::units).sum()).isEqualTo(expected);
        }
    }

    /** An --inject-after beyond the range never injects (start + it overflowed and injected from the start). */
    @Test
    void aHugeInjectAfterNeverInjects() throws Exception {
        SyntheticTraffic t = SyntheticTraffic.builder().count(1000).seed(3).heavyHitterShare(0.5)
                .injectAfter(io.linerate.jobs.cli.DurationConverter.parse("106751991167d")).build();
        io.linerate.jobs.format.PacketBatch b =
                io.linerate.jobs.format.PacketBatchCodec.decode(t.source().next().value());
        int heavy = 0;
        for (int i = 0; i < b.size(); i++) {
            heavy += b.get(i).srcIpv4() == PacketGenerator.HEAVY_SRC ? 1 : 0;
        }
        assertThat(heavy).isZero();
        // on the wall clock --inject-after counts from when the generator starts, not from --start (in the past)
        SyntheticTraffic wall = SyntheticTraffic.builder().count(1000).seed(3).heavyHitterShare(0.5)
                .clock(SyntheticTraffic.Clock.WALL).injectAfter(java.time.Duration.ofHours(1)).build();
        b = io.linerate.jobs.format.PacketBatchCodec.decode(wall.source().next().value());
        for (int i = 0; i < b.size(); i++) {
            heavy += b.get(i).srcIpv4() == PacketGenerator.HEAVY_SRC ? 1 : 0;
        }
        assertThat(heavy).as("wall clock, an hour before injection").isZero();
        wall = SyntheticTraffic.builder().count(1000).seed(3).heavyHitterShare(0.5)
                .clock(SyntheticTraffic.Clock.WALL).build();
        b = io.linerate.jobs.format.PacketBatchCodec.decode(wall.source().next().value());
        for (int i = 0; i < b.size(); i++) {
            heavy += b.get(i).srcIpv4() == PacketGenerator.HEAVY_SRC ? 1 : 0;
        }
        assertThat(heavy).as("wall clock, injecting from the start: Bin(1000, 0.5) ± 6 sd").isBetween(405, 595);
    }

    @Test
    void zipfProbabilitiesFollowTheFormula() {
        Zipf z = new Zipf(100, 1.0);
        double h = 0;
        for (int k = 1; k <= 100; k++) {
            h += 1.0 / k;
        }
        assertThat(z.probability(0)).isCloseTo(1 / h, org.assertj.core.data.Offset.offset(1e-12));
        assertThat(z.probability(9)).isCloseTo(0.1 / h, org.assertj.core.data.Offset.offset(1e-12));
        Mix m = new Mix(1);
        int[] counts = new int[100];
        int n = 200_000;
        for (int i = 0; i < n; i++) {
            counts[z.sample(m)]++;
        }
        for (int rank : new int[] {0, 1, 9, 99}) {
            double p = z.probability(rank);
            assertThat((double) counts[rank]).as("rank %d", rank)
                    .isCloseTo(n * p, org.assertj.core.data.Offset.offset(4 * Math.sqrt(n * p * (1 - p))));
        }
        Zipf uniform = new Zipf(10, 0);
        assertThat(uniform.probability(3)).isCloseTo(0.1, org.assertj.core.data.Offset.offset(1e-12));
    }

    @Test
    void badSettingsNameTheirOption() {
        assertThatThrownBy(() -> SyntheticTraffic.builder().skew(11)).hasMessageStartingWith("--skew must be in [0, 10]");
        assertThatThrownBy(() -> SyntheticTraffic.builder().batchSize(20_001))
                .hasMessageStartingWith("--batch-size must be in [1, 20000]");
        assertThatThrownBy(() -> SyntheticTraffic.builder().heavyHitterShare(0.7).attack(SyntheticTraffic.Attack.SYN_FLOOD)
                .attackShare(0.5).build()).hasMessageStartingWith("--heavy-hitter + --attack-share must be <= 1");
        assertThatThrownBy(() -> SyntheticTraffic.builder().keyField("a b")).hasMessageStartingWith("--key-field");
        assertThatThrownBy(() -> SyntheticTraffic.builder().duplicateRatio(1)).hasMessageStartingWith("--duplicate-ratio");
    }

    private record Run(int code, String out, String err) {
    }

    private static Run run(String... args) {
        CommandLine cl = Main.commandLine();
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        cl.setOut(new PrintWriter(out));
        cl.setErr(new PrintWriter(err));
        cl.setUsageHelpWidth(400);
        for (CommandLine sub : cl.getSubcommands().values()) {
            sub.setUsageHelpWidth(400);
        }
        int code = cl.execute(args);
        return new Run(code, out.toString(), err.toString());
    }

    /** Exactly these options (besides --help, --version), each with a default shown in its help line. */
    private static void assertDefaultsAndHelp(String command, String... options) {
        CommandLine.Model.CommandSpec spec = Main.commandLine().getSubcommands().get(command).getCommandSpec();
        List<String> names = new ArrayList<>();
        for (CommandLine.Model.OptionSpec o : spec.options()) {
            if (o.usageHelp() || o.versionHelp()) {
                continue;
            }
            names.add(o.longestName());
            if (!o.isMultiValue()) { // a repeatable option (--kafka-property) defaults to none given
                assertThat(o.defaultValue()).as(command + " " + o.longestName() + " default").isNotNull();
            }
            assertThat(String.join(" ", o.description())).as(command + " " + o.longestName() + " help")
                .contains("(default: ");
        }
        assertThat(names).containsExactlyInAnyOrder(options);
    }

    @Test
    void everyOptionHasADefaultAndHelpAndErrorsNameTheOption() {
        assertThat(Main.commandLine().getSubcommands()).containsKeys("generate", "replay");
        Run generate = run("generate", "--help");
        assertThat(generate.code()).isZero();
        assertDefaultsAndHelp("generate", "--bootstrap-servers", "--input-topic", "--format", "--count", "--rate",
            "--seed", "--clock", "--start", "--event-rate", "--flows", "--skew", "--observation-points",
            "--batch-size", "--ipv6-share", "--heavy-hitter", "--attack", "--attack-share", "--inject-after",
            "--duplicate-ratio", "--duplicate-window", "--tenants", "--key-field", "--scope-field",
            "--timestamp-field", "--progress-interval", "--kafka-config", "--kafka-property", "--producer-property");
        Run replay = run("replay", "--help");
        assertThat(replay.code()).isZero();
        assertDefaultsAndHelp("replay", "--bootstrap-servers", "--input-topic", "--observation-point",
            "--per-interface", "--batch-size", "--rate", "--speed", "--loop", "--progress-interval", "--kafka-config",
            "--kafka-property", "--producer-property");
        assertThat(generate.out() + replay.out()).doesNotContain("--output-topic").doesNotContain("--dead-letter-topic");

        Run badSkew = run("generate", "--skew", "11");
        assertThat(badSkew.code()).isEqualTo(2);
        assertThat(badSkew.err()).contains("--skew must be in [0, 10], got 11.0");
        Run badAttack = run("generate", "--attack", "ddos");
        assertThat(badAttack.code()).isEqualTo(2);
        assertThat(badAttack.err()).contains("--attack must be one of none, syn-flood, port-scan, got 'ddos'");
        Run badStart = run("generate", "--start", "yesterday");
        assertThat(badStart.err()).contains("--start must be now, epoch milliseconds or an ISO-8601 instant");
        Run both = run("replay", "--rate", "10", "--speed", "1", "pom.xml");
        assertThat(both.code()).isEqualTo(2);
        assertThat(both.err()).contains("--rate and --speed exclude each other");
        Run missing = run("replay", "no-such-file.pcap");
        assertThat(missing.code()).isEqualTo(2);
        assertThat(missing.err()).contains("FILE no-such-file.pcap is not a readable file (no such file)");
        Run directory = run("replay", "src");
        assertThat(directory.code()).isEqualTo(2);
        assertThat(directory.err()).contains("FILE src is not a readable file (a directory)");
        Run zeroGenerateInterval = run("generate", "--progress-interval", "0s");
        assertThat(zeroGenerateInterval.code()).isEqualTo(2);
        assertThat(zeroGenerateInterval.err()).contains("--progress-interval must be > 0s, got 0s");
        Run zeroInterval = run("replay", "--progress-interval", "0s", "pom.xml");
        assertThat(zeroInterval.code()).isEqualTo(2);
        assertThat(zeroInterval.err()).contains("--progress-interval must be > 0s, got 0s").doesNotContain("PT0S");
    }

    /** The generate command as parsed from {@code args} (nothing run). */
    private static GenerateCommand parseGenerate(String... args) {
        CommandLine.ParseResult parsed = Main.commandLine().parseArgs(args);
        return (GenerateCommand) parsed.subcommand().commandSpec().userObject();
    }

    /**
     * An option of one record format given for the other would be ignored: refused before anything runs, naming
     * the option and the format it applies to. The options are found by their help ("Packets: …", "Events: …"),
     * so a new format-specific option is covered too; the options of both formats are taken by either.
     */
    @Test
    void generateRefusesTheOptionsOfTheOtherFormat() {
        java.util.Map<String, String> values = java.util.Map.ofEntries(java.util.Map.entry("--flows", "10"),
            java.util.Map.entry("--skew", "0.5"), java.util.Map.entry("--observation-points", "2"),
            java.util.Map.entry("--batch-size", "10"), java.util.Map.entry("--ipv6-share", "0.5"),
            java.util.Map.entry("--heavy-hitter", "0.2"), java.util.Map.entry("--attack", "syn-flood"),
            java.util.Map.entry("--attack-share", "0.3"), java.util.Map.entry("--inject-after", "1s"),
            java.util.Map.entry("--duplicate-ratio", "0.2"), java.util.Map.entry("--duplicate-window", "10"),
            java.util.Map.entry("--tenants", "2"), java.util.Map.entry("--key-field", "k"),
            java.util.Map.entry("--scope-field", "s"), java.util.Map.entry("--timestamp-field", "t"));
        List<String> packetOnly = new ArrayList<>();
        List<String> eventOnly = new ArrayList<>();
        for (CommandLine.Model.OptionSpec o
                : Main.commandLine().getSubcommands().get("generate").getCommandSpec().options()) {
            String help = String.join(" ", o.description());
            if (help.startsWith("Packets:")) {
                packetOnly.add(o.longestName());
            } else if (help.startsWith("Events:")) {
                eventOnly.add(o.longestName());
            }
        }
        assertThat(packetOnly).hasSize(9);
        assertThat(eventOnly).hasSize(6);
        for (String option : packetOnly) {
            assertThat(values).as(option).containsKey(option);
            assertThatThrownBy(() -> parseGenerate("generate", "--format", "events", option, values.get(option))
                    .traffic()).as(option).isInstanceOf(CommandLine.ParameterException.class)
                .hasMessage(option + " applies to packets only (--format packets), not to events (--format events):"
                    + " leave it out");
            // taken for packets (with what the option acts on: an attack for its share, something to inject)
            List<String> args = new ArrayList<>(List.of("generate", option, values.get(option)));
            if (option.equals("--attack-share") || option.equals("--inject-after")) {
                args.addAll(List.of("--attack", "port-scan"));
            }
            parseGenerate(args.toArray(String[]::new)).traffic();
        }
        for (String option : eventOnly) {
            assertThat(values).as(option).containsKey(option);
            assertThatThrownBy(() -> parseGenerate("generate", option, values.get(option)).traffic()).as(option)
                .isInstanceOf(CommandLine.ParameterException.class)
                .hasMessage(option + " applies to events only (--format events), not to packets (--format packets,"
                    + " the default): leave it out");
            assertThatThrownBy(() -> parseGenerate("generate", "--format", "packets", option, values.get(option))
                    .traffic()).as(option).isInstanceOf(CommandLine.ParameterException.class)
                .hasMessage(option + " applies to events only (--format events), not to packets (--format packets):"
                    + " leave it out");
            parseGenerate("generate", "--format", "events", option, values.get(option)).traffic(); // taken for events
        }
        // several at once: all named
        assertThatThrownBy(() -> parseGenerate("generate", "--format", "events", "--flows", "10", "--attack",
                "port-scan", "--tenants", "2").traffic())
            .hasMessage("--flows, --attack apply to packets only (--format packets), not to events (--format events):"
                + " leave them out");
        // the options of both formats, given explicitly, for either format and clock
        for (String format : new String[] {"packets", "events"}) {
            parseGenerate("generate", "--format", format, "--count", "10", "--rate", "5", "--seed", "3", "--clock",
                "event", "--start", "now", "--event-rate", "100000", "--progress-interval", "1s").traffic();
            parseGenerate("generate", "--format", format, "--count", "10", "--rate", "5", "--seed", "3", "--clock",
                "wall", "--progress-interval", "1s").traffic();
        }
        Run run = run("generate", "--format", "events", "--skew", "0.5");
        assertThat(run.code()).isEqualTo(2);
        assertThat(run.err()).contains("--skew applies to packets only (--format packets), not to events");
    }

    /**
     * With {@code --clock wall} every packet or event is stamped with the wall clock when generated: {@code --start}
     * and {@code --event-rate} were taken and silently ignored (run against the embedded broker, {@code --clock wall
     * --start 2020-01-01T00:00:00Z --event-rate 1} wrote packets stamped with the time of the run, as without them).
     * Now refused naming both options, for either format; taken with the event clock.
     */
    @Test
    void generateRefusesTheEventClockOptionsWithTheWallClock() {
        for (String format : new String[] {"packets", "events"}) {
            assertThatThrownBy(() -> parseGenerate("generate", "--format", format, "--clock", "wall", "--start",
                    "2020-01-01T00:00:00Z").traffic()).as(format).isInstanceOf(CommandLine.ParameterException.class)
                .hasMessage("--start applies to the event clock only (--clock event, the default), not to --clock "
                    + "wall, which stamps each packet or event with the wall clock when it is generated: leave it out");
            assertThatThrownBy(() -> parseGenerate("generate", "--format", format, "--clock", "wall", "--event-rate",
                    "1").traffic()).as(format).isInstanceOf(CommandLine.ParameterException.class)
                .hasMessageStartingWith("--event-rate applies to the event clock only (--clock event, the default), "
                    + "not to --clock wall");
            assertThatThrownBy(() -> parseGenerate("generate", "--format", format, "--clock", "wall", "--start", "now",
                    "--event-rate", "1").traffic()).as(format).isInstanceOf(CommandLine.ParameterException.class)
                .hasMessageStartingWith("--start, --event-rate apply to the event clock only").hasMessageEndingWith(
                    ": leave them out");
            SyntheticTraffic event = parseGenerate("generate", "--format", format, "--clock", "event", "--start",
                "2020-01-01T00:00:00Z", "--event-rate", "1", "--count", "10").traffic();
            assertThat(event.start).isEqualTo(1_577_836_800_000L);
            assertThat(event.eventRate).isEqualTo(1);
            assertThat(parseGenerate("generate", "--format", format, "--clock", "wall").traffic().clock)
                .isEqualTo(SyntheticTraffic.Clock.WALL);
        }
        Run run = run("generate", "--clock", "wall", "--event-rate", "0.0004");
        assertThat(run.code()).isEqualTo(2);
        assertThat(run.err()).contains("--event-rate applies to the event clock only (--clock event, the default), "
            + "not to --clock wall");
    }

    /**
     * The builder refuses a setting given (even at its default value) that the chosen format or clock ignores,
     * naming it, its option and the format or clock, whatever the order of the calls; what was not set is not
     * refused. Every setter of the builder is covered: those not of both formats and clocks must be in the lists.
     */
    @Test
    void theBuilderRefusesASettingItsFormatOrClockIgnores() {
        java.util.Map<String, java.util.function.UnaryOperator<SyntheticTraffic.Builder>> set = java.util.Map.ofEntries(
            java.util.Map.entry("flows", b -> b.flows(10)), java.util.Map.entry("skew", b -> b.skew(0.5)),
            java.util.Map.entry("observationPoints", b -> b.observationPoints(2)),
            java.util.Map.entry("batchSize", b -> b.batchSize(1000)), // the default, set explicitly
            java.util.Map.entry("ipv6Share", b -> b.ipv6Share(0.5)),
            java.util.Map.entry("heavyHitterShare", b -> b.heavyHitterShare(0.2)),
            java.util.Map.entry("attack", b -> b.attack(SyntheticTraffic.Attack.SYN_FLOOD)),
            java.util.Map.entry("attackShare", b -> b.attackShare(0.3)),
            java.util.Map.entry("injectAfter", b -> b.injectAfter(java.time.Duration.ofSeconds(1))),
            java.util.Map.entry("duplicateRatio", b -> b.duplicateRatio(0.2)),
            java.util.Map.entry("duplicateWindow", b -> b.duplicateWindow(10)),
            java.util.Map.entry("tenants", b -> b.tenants(4)), // the default, set explicitly
            java.util.Map.entry("keyField", b -> b.keyField("k")),
            java.util.Map.entry("scopeField", b -> b.scopeField("s")),
            java.util.Map.entry("timestampField", b -> b.timestampField("t")),
            java.util.Map.entry("start", b -> b.start(0)), java.util.Map.entry("eventRate", b -> b.eventRate(1)));
        List<String> setters = new ArrayList<>();
        for (java.lang.reflect.Method m : SyntheticTraffic.Builder.class.getDeclaredMethods()) {
            if (java.lang.reflect.Modifier.isPublic(m.getModifiers())
                    && m.getReturnType() == SyntheticTraffic.Builder.class) {
                setters.add(m.getName());
            }
        }
        List<String> ofOneFormatOrClock = new ArrayList<>(SyntheticTraffic.PACKET_SETTINGS.keySet());
        ofOneFormatOrClock.addAll(SyntheticTraffic.EVENT_SETTINGS.keySet());
        ofOneFormatOrClock.addAll(SyntheticTraffic.EVENT_CLOCK_SETTINGS.keySet());
        List<String> ofAll = List.of("format", "seed", "count", "rate", "clock");
        assertThat(setters).containsExactlyInAnyOrderElementsOf(
            java.util.stream.Stream.concat(ofAll.stream(), ofOneFormatOrClock.stream()).toList());
        assertThat(set.keySet()).containsExactlyInAnyOrderElementsOf(ofOneFormatOrClock);

        SyntheticTraffic.Format events = SyntheticTraffic.Format.EVENTS;
        SyntheticTraffic.Format packets = SyntheticTraffic.Format.PACKETS;
        SyntheticTraffic.Clock wall = SyntheticTraffic.Clock.WALL;
        SyntheticTraffic.PACKET_SETTINGS.forEach((setting, option) -> {
            String refusal = setting + " (" + option + ") applies to format PACKETS only, not to format EVENTS: leave"
                + " it out";
            assertThatThrownBy(() -> set.get(setting).apply(SyntheticTraffic.builder().format(events)).build())
                .as(setting).isInstanceOf(IllegalArgumentException.class).hasMessage(refusal);
            assertThatThrownBy(() -> set.get(setting).apply(SyntheticTraffic.builder()).format(events).build())
                .as(setting + ", set before the format").hasMessage(refusal);
            // with an attack, which attackShare and injectAfter need
            set.get(setting).apply(SyntheticTraffic.builder()).attack(SyntheticTraffic.Attack.SYN_FLOOD).build();
            set.get(setting).apply(SyntheticTraffic.builder().format(packets)).attack(SyntheticTraffic.Attack.SYN_FLOOD)
                .clock(wall).build();
        });
        SyntheticTraffic.EVENT_SETTINGS.forEach((setting, option) -> {
            assertThatThrownBy(() -> set.get(setting).apply(SyntheticTraffic.builder()).build()).as(setting)
                .isInstanceOf(IllegalArgumentException.class).hasMessage(setting + " (" + option + ") applies to"
                    + " format EVENTS only, not to format PACKETS (the default): leave it out");
            assertThatThrownBy(() -> set.get(setting).apply(SyntheticTraffic.builder().format(packets)).build())
                .as(setting).hasMessage(setting + " (" + option + ") applies to format EVENTS only, not to format"
                    + " PACKETS: leave it out");
            set.get(setting).apply(SyntheticTraffic.builder().format(events)).clock(wall).build();
        });
        SyntheticTraffic.EVENT_CLOCK_SETTINGS.forEach((setting, option) -> {
            String refusal = setting + " (" + option + ") applies to clock EVENT only, not to clock WALL, which stamps"
                + " each packet or event with the wall clock when generated: leave it out";
            for (SyntheticTraffic.Format format : SyntheticTraffic.Format.values()) {
                assertThatThrownBy(() -> set.get(setting).apply(SyntheticTraffic.builder().format(format).count(1)
                    .clock(wall)).build()).as(setting + ", " + format).isInstanceOf(IllegalArgumentException.class)
                    .hasMessage(refusal);
                assertThatThrownBy(() -> set.get(setting).apply(SyntheticTraffic.builder().format(format).count(1))
                    .clock(wall).build()).as(setting + ", set before the clock").hasMessage(refusal);
                set.get(setting).apply(SyntheticTraffic.builder().format(format).count(1)).build();
            }
        });
        // several at once: all named
        assertThatThrownBy(() -> SyntheticTraffic.builder().format(events).batchSize(10).heavyHitterShare(0.1).build())
            .hasMessage("batchSize (--batch-size), heavyHitterShare (--heavy-hitter) apply to format PACKETS only, not"
                + " to format EVENTS: leave them out");
        // nothing set: the defaults of the other format and clock are not refused
        SyntheticTraffic.builder().format(events).clock(wall).build();
        SyntheticTraffic.builder().format(packets).clock(wall).build();
    }

    /**
     * The builder, as generate, refuses an attackShare given without an attack and an injectAfter given with neither
     * a heavy hitter nor an attack, naming the setting, its option and what it needs, both at once and whatever the
     * order of the calls; not given, their defaults are never refused; with what they act on, they are taken.
     */
    @Test
    void theBuilderRefusesAnAttackShareWithoutAttackAndAnInjectionTimeWithNothingToInject() {
        String attackShare = "attackShare (--attack-share) applies to an injected attack only, and attack (--attack)"
            + " is NONE: set attack SYN_FLOOD or PORT_SCAN, or leave attackShare out";
        String injectAfter = "injectAfter (--inject-after) says when the heavy hitter and the attack begin, and there"
            + " is neither (heavyHitterShare (--heavy-hitter) 0, attack (--attack) NONE): set one, or leave injectAfter"
            + " out";
        java.time.Duration second = java.time.Duration.ofSeconds(1);
        assertThatThrownBy(() -> SyntheticTraffic.builder().attackShare(0.3).build())
            .isInstanceOf(IllegalArgumentException.class).hasMessage(attackShare);
        assertThatThrownBy(() -> SyntheticTraffic.builder().attackShare(0.1).attack(SyntheticTraffic.Attack.NONE)
            .heavyHitterShare(0.2).build()).as("the default share, attack NONE given").hasMessage(attackShare);
        assertThatThrownBy(() -> SyntheticTraffic.builder().injectAfter(second).build())
            .isInstanceOf(IllegalArgumentException.class).hasMessage(injectAfter);
        assertThatThrownBy(() -> SyntheticTraffic.builder().heavyHitterShare(0).injectAfter(java.time.Duration.ZERO)
            .clock(SyntheticTraffic.Clock.WALL).build()).as("the default time, heavy hitter 0 given")
            .hasMessage(injectAfter);
        assertThatThrownBy(() -> SyntheticTraffic.builder().injectAfter(second).attackShare(0.5).build())
            .as("both").hasMessage(attackShare + "; " + injectAfter);
        // with what they act on, taken; an attack set after them counts as well
        SyntheticTraffic.builder().attackShare(0.3).injectAfter(second).attack(SyntheticTraffic.Attack.PORT_SCAN).build();
        SyntheticTraffic.builder().injectAfter(second).heavyHitterShare(0.2).build();
        SyntheticTraffic.builder().heavyHitterShare(0.2).attack(SyntheticTraffic.Attack.NONE).injectAfter(second).build();
        // not given: their defaults are not refused
        SyntheticTraffic.builder().build();
        SyntheticTraffic.builder().heavyHitterShare(0).attack(SyntheticTraffic.Attack.NONE).build();
    }

    /** A packet option with nothing to act on is refused naming what it needs; with it, it is taken. */
    @Test
    void generateRefusesAnAttackShareWithoutAttackAndAnInjectionTimeWithNothingToInject() {
        assertThatThrownBy(() -> parseGenerate("generate", "--attack-share", "0.3").traffic())
            .isInstanceOf(CommandLine.ParameterException.class)
            .hasMessage("--attack-share applies to an injected attack only, and --attack is none: set --attack "
                + "syn-flood|port-scan or leave --attack-share out");
        assertThatThrownBy(() -> parseGenerate("generate", "--inject-after", "5s").traffic())
            .isInstanceOf(CommandLine.ParameterException.class)
            .hasMessage("--inject-after says when the heavy hitter and the attack begin, and there is neither "
                + "(--heavy-hitter 0, --attack none): set one or leave --inject-after out");
        parseGenerate("generate", "--attack", "syn-flood", "--attack-share", "0.3", "--inject-after", "5s").traffic();
        parseGenerate("generate", "--heavy-hitter", "0.2", "--inject-after", "5s").traffic();
    }

    /** generate's progress lines: what the broker acknowledged, its share of --count and its rate, once per interval. */
    @Test
    void generateReportsAcknowledgedUnitsOncePerInterval() {
        java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
        java.io.PrintStream out = new java.io.PrintStream(bytes, true, java.nio.charset.StandardCharsets.UTF_8);
        new AckProgress(out, "packets", 1000, 0).accept(250);
        AckProgress hourly = new AckProgress(out, "events", 0, 3_600_000_000_000L);
        hourly.accept(10);
        hourly.accept(10);
        assertThat(bytes.toString(java.nio.charset.StandardCharsets.UTF_8).lines().toList()).singleElement()
            .asString().startsWith("generate: 250 packets acknowledged (25.0% of 1,000), ").endsWith(" packets/s");
    }

    @Test
    void generateNamesTheIpv6ShareInItsDescription() {
        assertThat(SyntheticTraffic.builder().ipv6Share(0.25).build().description()).contains("IPv6 25.0%");
        assertThat(SyntheticTraffic.builder().build().description()).doesNotContain("IPv6");
    }
}
