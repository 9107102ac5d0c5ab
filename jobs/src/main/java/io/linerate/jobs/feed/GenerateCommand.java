package io.linerate.jobs.feed;

import java.io.PrintStream;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;

import io.linerate.jobs.cli.DurationConverter;
import io.linerate.jobs.cli.KafkaOptions;
import io.linerate.jobs.cli.Main;
import io.linerate.jobs.cli.TopicChecks;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code linerate generate}: synthetic traffic to a Kafka topic, reproducible from a seed ({@link SyntheticTraffic}).
 */
@Command(name = "generate", mixinStandardHelpOptions = true, versionProvider = Main.ManifestVersion.class,
    sortOptions = false, usageHelpAutoWidth = true,
    description = {
        "Writes synthetic traffic to the Kafka topic --input-topic (the topic the jobs read), reproducible from "
            + "--seed: packet batches of Zipf flows with an optional heavy hitter or attack, or JSON events with "
            + "duplicates.",
        "Packets are batched per observation point and keyed by it; events are keyed by their scope (tenant)."})
public final class GenerateCommand implements Callable<Integer> {

    @Spec
    private CommandSpec spec;

    @Mixin
    private KafkaOptions kafka;

    @Option(names = "--format", paramLabel = "packets|events", defaultValue = "packets",
        description = "What to write: packet batches (binary v1) or JSON events (default: ${DEFAULT-VALUE})")
    String format;

    @Option(names = "--count", paramLabel = "N", defaultValue = "1000000",
        description = "Packets or events to write; 0: until Ctrl-C (default: ${DEFAULT-VALUE})")
    long count;

    @Option(names = "--rate", paramLabel = "PER_SECOND", defaultValue = "0",
        description = "Packets or events per second of wall clock; 0: as fast as possible (default: ${DEFAULT-VALUE})")
    double rate;

    @Option(names = "--seed", paramLabel = "N", defaultValue = "1",
        description = "Seed of every random choice: the same seed and options write the same records "
            + "(default: ${DEFAULT-VALUE})")
    long seed;

    @Option(names = "--clock", paramLabel = "event|wall", defaultValue = "event",
        description = "Timestamps: event (from --start at --event-rate, reproducible) or wall (the wall clock when "
            + "generated) (default: ${DEFAULT-VALUE})")
    String clock;

    @Option(names = "--start", paramLabel = "INSTANT", defaultValue = "2026-01-01T00:00:00Z",
        description = "Event time of the first packet or event: ISO-8601, epoch ms or now (default: ${DEFAULT-VALUE})")
    String start;

    @Option(names = "--event-rate", paramLabel = "PER_SECOND", defaultValue = "10000",
        description = "Packets or events per second of EVENT time: how fast the timestamps advance "
            + "(default: ${DEFAULT-VALUE})")
    double eventRate;

    @Option(names = "--flows", paramLabel = "N", defaultValue = "10000",
        description = "Packets: flows of the Zipf distribution, at most " + SyntheticTraffic.MAX_FLOWS
            + " (default: ${DEFAULT-VALUE})")
    int flows;

    @Option(names = "--skew", paramLabel = "S", defaultValue = "1.1",
        description = "Packets: Zipf exponent s, P(rank i) ~ i^-s; 0: uniform (default: ${DEFAULT-VALUE})")
    double skew;

    @Option(names = "--observation-points", paramLabel = "N", defaultValue = "4",
        description = "Packets: observation points 0..N-1, batches round-robin (default: ${DEFAULT-VALUE})")
    int observationPoints;

    @Option(names = "--batch-size", paramLabel = "PACKETS", defaultValue = "1000",
        description = "Packets: packets per Kafka record, at most " + SyntheticTraffic.MAX_BATCH_SIZE
            + " (default: ${DEFAULT-VALUE})")
    int batchSize;

    @Option(names = "--ipv6-share", paramLabel = "FRACTION", defaultValue = "0",
        description = "Packets: share of the flows that are IPv6 (default: ${DEFAULT-VALUE})")
    double ipv6Share;

    @Option(names = "--heavy-hitter", paramLabel = "FRACTION", defaultValue = "0",
        description = "Packets: share of packets of one injected heavy-hitter flow "
            + "172.16.0.1:40000 -> 192.168.200.1:443 from --inject-after on; 0: none (default: ${DEFAULT-VALUE})")
    double heavyHitter;

    @Option(names = "--attack", paramLabel = "none|syn-flood|port-scan", defaultValue = "none",
        description = "Packets: an injected attack from --inject-after on: syn-flood (SYNs from random sources to "
            + "192.168.250.80:80) or port-scan (198.51.100.7 to every port of 192.168.250.10) "
            + "(default: ${DEFAULT-VALUE})")
    String attack;

    @Option(names = "--attack-share", paramLabel = "FRACTION", defaultValue = "0.1",
        description = "Packets: share of packets of the attack (default: ${DEFAULT-VALUE})")
    double attackShare;

    @Option(names = "--inject-after", paramLabel = "DURATION", defaultValue = "0s", converter = DurationConverter.class,
        description = "Packets: event time after --start at which the heavy hitter and the attack begin; with "
            + "--clock wall, time after the generator starts (default: ${DEFAULT-VALUE})")
    Duration injectAfter;

    @Option(names = "--duplicate-ratio", paramLabel = "FRACTION", defaultValue = "0.1",
        description = "Events: share of events repeating an earlier event's key and scope (default: ${DEFAULT-VALUE})")
    double duplicateRatio;

    @Option(names = "--duplicate-window", paramLabel = "KEYS", defaultValue = "10000",
        description = "Events: a duplicate repeats one of the last KEYS distinct keys (default: ${DEFAULT-VALUE})")
    int duplicateWindow;

    @Option(names = "--tenants", paramLabel = "N", defaultValue = "4",
        description = "Events: scopes tenant-0..tenant-(N-1) (default: ${DEFAULT-VALUE})")
    int tenants;

    @Option(names = "--key-field", paramLabel = "NAME", defaultValue = "id",
        description = "Events: JSON field of the key (default: ${DEFAULT-VALUE})")
    String keyField;

    @Option(names = "--scope-field", paramLabel = "NAME", defaultValue = "tenant",
        description = "Events: JSON field of the scope (default: ${DEFAULT-VALUE})")
    String scopeField;

    @Option(names = "--timestamp-field", paramLabel = "NAME", defaultValue = "ts",
        description = "Events: JSON field of the event time, epoch ms (default: ${DEFAULT-VALUE})")
    String timestampField;

    @Option(names = "--progress-interval", paramLabel = "DURATION", defaultValue = "10s",
        converter = DurationConverter.class,
        description = "Time between progress lines: packets or events acknowledged so far and their rate "
            + "(default: ${DEFAULT-VALUE})")
    Duration progressInterval;

    /** Where progress and the summary go (tests replace it). */
    PrintStream out = System.out;

    /** The options that shape packets only (their help starts "Packets:"). */
    static final List<String> PACKET_OPTIONS = List.copyOf(SyntheticTraffic.PACKET_SETTINGS.values());
    /** The options that shape events only (their help starts "Events:"). */
    static final List<String> EVENT_OPTIONS = List.copyOf(SyntheticTraffic.EVENT_SETTINGS.values());
    /** The options of the event clock only: the wall clock stamps the time when generated. */
    static final List<String> EVENT_CLOCK_OPTIONS = List.copyOf(SyntheticTraffic.EVENT_CLOCK_SETTINGS.values());

    /**
     * Refuses the options of the format not chosen, given on the command line: they would be ignored. Their picocli
     * defaults are not "given" ({@code hasMatchedOption}), so only what the user typed is refused.
     */
    private void refuseOptionsOfTheOtherFormat(SyntheticTraffic.Format chosen) {
        CommandLine.ParseResult given = spec.commandLine().getParseResult();
        if (given == null) {
            return;
        }
        boolean packets = chosen == SyntheticTraffic.Format.PACKETS;
        List<String> ignored = (packets ? EVENT_OPTIONS : PACKET_OPTIONS).stream()
                .filter(given::hasMatchedOption).toList();
        if (ignored.isEmpty()) {
            return;
        }
        boolean one = ignored.size() == 1;
        String chosenFormat = packets ? "packets (--format packets" + (given.hasMatchedOption("--format")
                ? "" : ", the default") + ")" : "events (--format events)";
        throw new ParameterException(spec.commandLine(), String.join(", ", ignored) + (one ? " applies" : " apply")
                + " to " + (packets ? "events only (--format events)" : "packets only (--format packets)")
                + ", not to " + chosenFormat + ": leave " + (one ? "it" : "them") + " out");
    }

    /**
     * Refuses, among the packet options given, those with nothing to act on: {@code --attack-share} without an
     * {@code --attack}, {@code --inject-after} with neither an attack nor a {@code --heavy-hitter}. Both would be
     * ignored (the share is 0 without an attack).
     */
    private void refuseOptionsWithNothingToShape() {
        CommandLine.ParseResult given = spec.commandLine().getParseResult();
        if (given == null) {
            return;
        }
        boolean noAttack = "none".equalsIgnoreCase(attack.trim());
        if (given.hasMatchedOption("--attack-share") && noAttack) {
            throw new ParameterException(spec.commandLine(), "--attack-share applies to an injected attack only, and "
                    + "--attack is none: set --attack syn-flood|port-scan or leave --attack-share out");
        }
        if (given.hasMatchedOption("--inject-after") && noAttack && heavyHitter == 0) {
            throw new ParameterException(spec.commandLine(), "--inject-after says when the heavy hitter and the attack "
                    + "begin, and there is neither (--heavy-hitter 0, --attack none): set one or leave --inject-after "
                    + "out");
        }
    }

    /**
     * Refuses, with {@code --clock wall}, the options of the event clock given on the command line ({@code --start},
     * {@code --event-rate}): the wall clock stamps each packet or event with the time it is generated, so they would
     * be ignored.
     */
    private void refuseEventClockOptionsOnTheWallClock(SyntheticTraffic.Clock chosen) {
        CommandLine.ParseResult given = spec.commandLine().getParseResult();
        if (given == null || chosen != SyntheticTraffic.Clock.WALL) {
            return;
        }
        List<String> ignored = EVENT_CLOCK_OPTIONS.stream().filter(given::hasMatchedOption).toList();
        if (ignored.isEmpty()) {
            return;
        }
        boolean one = ignored.size() == 1;
        throw new ParameterException(spec.commandLine(), String.join(", ", ignored) + (one ? " applies" : " apply")
                + " to the event clock only (--clock event, the default), not to --clock wall, which stamps each "
                + "packet or event with the wall clock when it is generated: leave " + (one ? "it" : "them") + " out");
    }

    /** The traffic the options describe; a bad value is a {@link ParameterException} naming its option. */
    SyntheticTraffic traffic() {
        if (progressInterval.isNegative() || progressInterval.isZero()) {
            throw new ParameterException(spec.commandLine(), "--progress-interval must be > 0s, got "
                    + DurationConverter.format(progressInterval));
        }
        SyntheticTraffic.Format chosen = FeedCommands.choice(spec, "--format", format, SyntheticTraffic.Format.class);
        SyntheticTraffic.Clock chosenClock = FeedCommands.choice(spec, "--clock", clock, SyntheticTraffic.Clock.class);
        refuseOptionsOfTheOtherFormat(chosen);
        refuseEventClockOptionsOnTheWallClock(chosenClock);
        refuseOptionsWithNothingToShape();
        if (chosen == SyntheticTraffic.Format.PACKETS) {
            FeedCommands.requireBatchFits(spec, batchSize, kafka.feederProducerProperties());
        }
        try {
            // only what the format and the clock use: the builder refuses a setting they would ignore
            SyntheticTraffic.Builder traffic = SyntheticTraffic.builder()
                    .format(chosen)
                    .count(count)
                    .rate(rate)
                    .seed(seed)
                    .clock(chosenClock);
            if (chosenClock == SyntheticTraffic.Clock.EVENT) {
                traffic.start(FeedCommands.instant(spec, "--start", start))
                        .eventRate(eventRate);
            }
            if (chosen == SyntheticTraffic.Format.PACKETS) {
                SyntheticTraffic.Attack chosenAttack =
                        FeedCommands.choice(spec, "--attack", attack, SyntheticTraffic.Attack.class);
                traffic.flows(flows)
                        .skew(skew)
                        .observationPoints(observationPoints)
                        .batchSize(batchSize)
                        .ipv6Share(ipv6Share)
                        .heavyHitterShare(heavyHitter)
                        .attack(chosenAttack);
                // the share and the time only with what they act on (refused above when given without it)
                if (chosenAttack != SyntheticTraffic.Attack.NONE) {
                    traffic.attackShare(attackShare);
                }
                if (chosenAttack != SyntheticTraffic.Attack.NONE || heavyHitter > 0) {
                    traffic.injectAfter(injectAfter);
                }
            } else {
                traffic.duplicateRatio(duplicateRatio)
                        .duplicateWindow(duplicateWindow)
                        .tenants(tenants)
                        .keyField(keyField)
                        .scopeField(scopeField)
                        .timestampField(timestampField);
            }
            return traffic.build();
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage(), e);
        }
    }

    @Override
    public Integer call() throws Exception {
        SyntheticTraffic traffic = traffic();
        if (traffic.format == SyntheticTraffic.Format.PACKETS && rate > 0 && batchSize / rate >= 1) {
            spec.commandLine().getErr().printf(java.util.Locale.ROOT, "generate: note: a batch of %d packets is sent"
                    + " when its last packet is due, so at --rate %s each waits %.1f s; lower --batch-size for a"
                    + " steadier flow%n", batchSize, rate, batchSize / rate);
            spec.commandLine().getErr().flush();
        }
        if (!TopicChecks.allowFeeder(spec, kafka, kafka.inputTopic())) {
            return 1;
        }
        out.println("generate: " + traffic.description() + " to " + kafka.inputTopic() + " on "
                + kafka.bootstrapServers());
        try (StopOnSignal stop = new StopOnSignal("linerate-generate-stop")) {
            boolean packets = traffic.format == SyntheticTraffic.Format.PACKETS;
            FeedSummary summary = traffic.run(kafka.bootstrapServers(), kafka.inputTopic(),
                    kafka.feederProducerProperties(), stop::stopRequested,
                    new AckProgress(out, packets ? "packets" : "events", count, progressInterval.toNanos()));
            out.println("generate: " + summary.describe(packets ? "packets" : "events", packets ? "batches" : "records"));
            return 0;
        } catch (Exception e) {
            spec.commandLine().getErr().println("generate: failed: " + e.getMessage());
            spec.commandLine().getErr().flush();
            return 1;
        }
    }
}
