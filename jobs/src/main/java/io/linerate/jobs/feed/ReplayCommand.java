package io.linerate.jobs.feed;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;

import io.linerate.jobs.cli.DurationConverter;
import io.linerate.jobs.cli.KafkaOptions;
import io.linerate.jobs.cli.Main;
import io.linerate.jobs.cli.TopicChecks;
import io.linerate.jobs.cli.Terminals;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** {@code linerate replay}: capture files to a Kafka topic as packet batches ({@link PcapReplay}). */
@Command(name = "replay", mixinStandardHelpOptions = true, versionProvider = Main.ManifestVersion.class,
    sortOptions = false, usageHelpAutoWidth = true,
    description = {
        "Replays pcap and pcapng files (plain or gzip-compressed) to the Kafka topic --input-topic (the topic the jobs read) as packet batches "
            + "(binary v1) keyed by observation point: as fast as possible, at --rate packets/s or at the capture's "
            + "pace (--speed 1), optionally looping with shifted timestamps.",
        "Shows a progress bar on a terminal, a progress line every --progress-interval otherwise, and a summary."})
public final class ReplayCommand implements Callable<Integer> {

    @Spec
    private CommandSpec spec;

    @Mixin
    private KafkaOptions kafka;

    @Parameters(paramLabel = "FILE", arity = "1..*",
        description = "Capture files (pcap or pcapng, plain or gzip-compressed), replayed one after the other; - reads "
            + "one from standard input (e.g. zstdcat trace.pcap.zst | ... replay -; then --loop must be 1)")
    List<Path> files;

    @Option(names = "--observation-point", paramLabel = "ID", defaultValue = "0",
        description = "Observation point of the packets (the scope key of the jobs) (default: ${DEFAULT-VALUE})")
    int observationPoint;

    @Option(names = "--per-interface", defaultValue = "false",
        description = "Observation point = --observation-point + the pcapng interface id (default: ${DEFAULT-VALUE})")
    boolean perInterface;

    @Option(names = "--batch-size", paramLabel = "PACKETS", defaultValue = "1000",
        description = "Packets per Kafka record at most, up to " + SyntheticTraffic.MAX_BATCH_SIZE
            + " (default: ${DEFAULT-VALUE})")
    int batchSize;

    @Option(names = "--rate", paramLabel = "PACKETS_PER_SECOND", defaultValue = "0",
        description = "Packets per second of wall clock; 0: as fast as possible (default: ${DEFAULT-VALUE})")
    double rate;

    @Option(names = "--speed", paramLabel = "FACTOR", defaultValue = "0",
        description = "Replay at the capture's own pace times FACTOR (1: real time, 2: twice as fast); 0: not paced "
            + "by the capture; excludes --rate (default: ${DEFAULT-VALUE})")
    double speed;

    @Option(names = "--loop", paramLabel = "N", defaultValue = "1",
        description = "Passes over the files, each shifted in time by the capture's span + 1 ms; 0: until Ctrl-C "
            + "(default: ${DEFAULT-VALUE})")
    int loops;

    @Option(names = "--progress-interval", paramLabel = "DURATION", defaultValue = "5s",
        converter = DurationConverter.class,
        description = "Time between progress lines when the output is not a terminal (default: ${DEFAULT-VALUE})")
    Duration progressInterval;

    /** Where progress and the summary go, and whether that is a terminal (tests replace them). */
    PrintStream out = System.out;
    Boolean terminal;
    /** Whether standard input is a terminal (tests replace it). */
    boolean inputIsTerminal = Terminals.standardInput();

    /** The replay the options describe; a bad value is a {@link ParameterException} naming its option. */
    PcapReplay replay() {
        if (inputIsTerminal && files.contains(PcapReplay.STANDARD_INPUT)) {
            // it would wait for a capture typed in; most likely the pipe was forgotten
            throw new ParameterException(spec.commandLine(), "FILE - reads a capture from standard input, which is a "
                    + "terminal here: pipe one in (e.g. zstdcat trace.pcap.zst | linerate replay -)");
        }
        FeedCommands.requireBatchFits(spec, batchSize, kafka.feederProducerProperties());
        try {
            PcapReplay.Builder b = PcapReplay.builder(files)
                    .observationPoint(observationPoint)
                    .perInterface(perInterface)
                    .batchSize(batchSize)
                    .rate(rate)
                    .speed(speed)
                    .loops(loops)
                    .progressInterval(progressInterval)
                    .progress(out);
            if (terminal != null) {
                b.terminal(terminal);
            }
            return b.build();
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage(), e);
        }
    }

    @Override
    public Integer call() throws Exception {
        PcapReplay replay = replay();
        if (!TopicChecks.allowFeeder(spec, kafka, kafka.inputTopic())) {
            return 1;
        }
        out.println("replay: " + replay.description() + " to " + kafka.inputTopic() + " on " + kafka.bootstrapServers());
        try (StopOnSignal stop = new StopOnSignal("linerate-replay-stop")) {
            FeedSummary summary = replay.run(kafka.bootstrapServers(), kafka.inputTopic(),
                    kafka.feederProducerProperties(), stop::stopRequested,
                    n -> { });
            out.println("replay: " + summary.describe("packets", "batches"));
            if (summary.units() == 0 && summary.skippedTotal() > 0 && !stop.stopRequested()) {
                // every record skipped (e.g. a link type that is not read): nothing for a job, say so in the exit code
                spec.commandLine().getErr().println("replay: no packet was sent: all " + summary.skippedTotal()
                        + " records of the capture were skipped (reasons above; docs/pcap.md lists the link types"
                        + " and what each reason means)");
                spec.commandLine().getErr().flush();
                return 1;
            }
            return 0;
        } catch (PcapReplay.MalformedCaptureException e) {
            spec.commandLine().getErr().println("replay: " + e.getMessage());
            spec.commandLine().getErr().println("replay: before the error: "
                    + e.sentBeforeIt().describe("packets", "batches"));
            spec.commandLine().getErr().flush();
            return 1;
        } catch (IOException e) {
            spec.commandLine().getErr().println("replay: failed: " + e.getMessage());
            spec.commandLine().getErr().flush();
            return 1;
        } catch (Exception e) {
            spec.commandLine().getErr().println("replay: failed: " + e.getMessage());
            spec.commandLine().getErr().flush();
            return 1;
        }
    }
}
