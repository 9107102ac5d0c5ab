package io.linerate.benchmarks.pipeline;

import io.linerate.flink.flowmeter.FlowMeter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * The pipeline benchmark: the same synthetic packet stream, in batches of one link's packets per record, through
 * each selected {@link Pipeline} on a local MiniCluster, one after the other, and a markdown table of packets/s,
 * peak heap and checkpoint size.
 *
 * <pre>
 * java -Xms6g -Xmx6g -cp benchmarks/target/benchmarks.jar io.linerate.benchmarks.pipeline.PipelineBenchmark \
 *     [--pipelines discard,flink-heavy-hitters,...] [--packets 20M] [--flows 1M] [--skew 1.1] [--parallelism 2]
 *     [--checkpoint-interval 10s] [--seed N] [--rate 1M] [--links 8] [--batch 64] [--warmup-packets 1M] [--repeat 1]
 *     [--no-mid-run-checkpoint] [--progress-interval 5s] [--output FILE [--append]] [--list]
 * </pre>
 */
public final class PipelineBenchmark {

    private PipelineBenchmark() {
    }

    /**
     * First thing, what the {@code linerate} command does (jobs' {@code CommonPool.prepare}, which this module does
     * not depend on): on Java 25 and later a local Flink cluster in a JVM whose common pool has parallelism 1 can
     * hang while it starts or stops (README, "Java versions"), so the pool gets 4 unless set or given by the cores.
     */
    private static void sizeCommonPool() {
        String property = "java.util.concurrent.ForkJoinPool.common.parallelism";
        if (Runtime.version().feature() >= 25 && System.getProperty(property) == null
                && Runtime.getRuntime().availableProcessors() - 1 < 4) {
            System.setProperty(property, "4");
        }
    }

    public static void main(String[] args) throws Exception {
        sizeCommonPool();
        Options options;
        try {
            options = Options.parse(args);
        } catch (IllegalArgumentException e) {
            System.err.println("error: " + e.getMessage());
            System.err.println(Options.USAGE);
            System.exit(2);
            return;
        }
        if (options.help) {
            System.out.println(Options.USAGE);
            return;
        }
        if (options.list) {
            for (Pipeline p : Pipelines.ALL) {
                System.out.printf(Locale.ROOT, "%-24s %s%n", p.name(), p.description());
            }
            return;
        }
        int status = 0;
        try {
            String report = run(options, System.out::println);
            System.out.println();
            System.out.print(report);
            if (options.output != null) {
                Path out = Path.of(options.output);
                Files.writeString(out, report + (options.append ? "\n" : ""), StandardCharsets.UTF_8,
                        StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                        options.append ? StandardOpenOption.APPEND : StandardOpenOption.TRUNCATE_EXISTING);
                System.out.println("written to " + out.toAbsolutePath());
            }
        } catch (Exception e) {
            e.printStackTrace();
            status = 1;
        }
        System.out.flush();
        System.exit(status); // Flink leaves non-daemon threads behind
    }

    /** Runs the selected pipelines (after a warm-up run of each, if asked) and returns the markdown report. */
    public static String run(Options options, java.util.function.Consumer<String> log) throws Exception {
        List<Pipeline> pipelines = Pipelines.select(options.pipelines);
        Workload workload = options.workload();
        PipelineRunner runner = new PipelineRunner(new PipelineRunner.Setup(options.parallelism,
                options.checkpointInterval, options.midRunCheckpoint, options.progressInterval,
                options.stateBackend), log);
        List<RunResult> results = new ArrayList<>();
        for (Pipeline p : pipelines) {
            if (options.warmupPackets > 0) {
                Workload warm = new Workload(options.warmupPackets, workload.flows(), workload.skew(),
                        workload.seed() + 1, workload.packetsPerSecond(), workload.links(), workload.batch());
                log.accept(String.format(Locale.ROOT, "%s: warm-up, %,d packets", p.name(), warm.packets()));
                runner.run(p, options.settings(warm));
            }
            List<RunResult> runs = new ArrayList<>();
            for (int i = 1; i <= options.repeat; i++) {
                log.accept(String.format(Locale.ROOT, "%s: %,d packets%s — %s", p.name(), workload.packets(),
                        options.repeat > 1 ? " (run " + i + " of " + options.repeat + ")" : "", p.description()));
                RunResult r = runner.run(p, options.settings(workload));
                log.accept(String.format(Locale.ROOT, "%s: %,.0f packets/s over %.2f s of processing (job %.2f s), "
                                + "peak heap after GC %s (idle cluster %s, %d GCs), largest checkpoint %s "
                                + "(%d completed), %,d sink records",
                        p.name(), r.packetsPerSecond(), r.processingNanos() / 1e9, r.wallNanos() / 1e9,
                        Report.bytes(r.peakHeapAfterGc()), Report.bytes(r.idleHeap()), r.gcCount(),
                        Report.bytes(r.checkpointSize()), r.checkpoints(), r.sinkRecords()));
                runs.add(r);
            }
            results.add(median(runs));
        }
        return Report.markdown(header(options, workload), results, pipelines);
    }

    /** The run of median packets/s (the lower middle one for an even count), reported whole. */
    static RunResult median(List<RunResult> runs) {
        List<RunResult> sorted = new ArrayList<>(runs);
        sorted.sort(java.util.Comparator.comparingDouble(RunResult::packetsPerSecond));
        return sorted.get((sorted.size() - 1) / 2);
    }

    private static String header(Options o, Workload w) {
        Runtime rt = Runtime.getRuntime();
        return String.format(Locale.ROOT, "### Pipelines, %s%n%n"
                        + "%,d packets over %,d IPv4 flows, Zipf %s, seed %d, %,d packets per simulated second "
                        + "(%.0f s of event time), %d links, source records of up to %d packets of one link; "
                        + "MiniCluster, parallelism %d, %s, "
                        + "checkpoints every %s%s; warm-up %,d packets per pipeline; %s. JDK %s, max heap %s, "
                        + "%d processors.%n",
                Instant.now().truncatedTo(ChronoUnit.SECONDS), w.packets(), w.flows(), w.skew(), w.seed(),
                w.packetsPerSecond(), w.simulatedSeconds(), w.links(), w.batch(), o.parallelism,
                o.stateBackend.equals("rocksdb") ? "RocksDB state backend (the linerate heavy hitters', flow meter's "
                        + "and dedup's state cache " + Report.bytes(o.stateCache) + " per subtask)" : "heap state backend",
                Report.duration(o.checkpointInterval),
                o.midRunCheckpoint ? " plus one at half the packets" : "", o.warmupPackets,
                o.repeat == 1 ? "one measured run per pipeline"
                        : "each row the run of median packets/s of " + o.repeat,
                System.getProperty("java.version"), Report.bytes(rt.maxMemory()), rt.availableProcessors());
    }

    /** The command line. */
    public static final class Options {
        static final String USAGE = """
                usage: PipelineBenchmark [options]
                  --pipelines a,b,...        pipelines to run, in this order (default: all; --list shows them)
                  --packets N                packets in the stream (default 20M; suffixes k, M accepted)
                  --flows N                  distinct flows (default 1M)
                  --skew S                   Zipf exponent of the flows (default 1.1)
                  --parallelism P            job parallelism (default 2)
                  --checkpoint-interval D    e.g. 10s, 500ms (default 10s)
                  --state-backend B          hashmap or rocksdb (default hashmap)
                  --state-cache BYTES        the linerate heavy hitters', flow meter's and dedup's state cache
                                             per subtask on RocksDB, e.g. 64M, 0 (default 64M)
                  --seed N                   generator seed
                  --rate N                   packets per simulated second of event time (default 1M)
                  --links N                  links (observation points) the flows are spread over (default 8)
                  --batch N                  packets per source record, all of one link (default 64; 1: a record
                                             per packet)
                  --warmup-packets N         an unmeasured run of each pipeline first (default 1M; 0: none)
                  --repeat N                 measured runs per pipeline; the report shows the median (default 1)
                  --no-mid-run-checkpoint    only periodic checkpoints (default: also one at half the packets)
                  --progress-interval D      progress lines every D (default 5s)
                  --output FILE              also write the markdown report to FILE
                  --append                   append to FILE instead of replacing it
                  --list                     list the pipelines and exit
                """;

        List<String> pipelines = Pipelines.ALL.stream().map(Pipeline::name).toList();
        long packets = Workload.PACKETS;
        int flows = Workload.FLOWS;
        double skew = Workload.SKEW;
        int parallelism = 2;
        Duration checkpointInterval = Duration.ofSeconds(10);
        String stateBackend = "hashmap";
        long stateCache = FlowMeter.DEFAULT_STATE_CACHE_BYTES;
        long seed = Workload.SEED;
        long rate = Workload.PACKETS_PER_SECOND;
        int links = Workload.LINKS;
        int batch = Workload.BATCH;
        long warmupPackets = 1_000_000;
        int repeat = 1;
        boolean midRunCheckpoint = true;
        Duration progressInterval = Duration.ofSeconds(5);
        String output;
        boolean append;
        boolean list;
        boolean help;

        /** Parses {@code args}; fails naming the option and what it expects. */
        public static Options parse(String... args) {
            Options o = new Options();
            for (int i = 0; i < args.length; i++) {
                String a = args[i];
                switch (a) {
                    case "--list" -> o.list = true;
                    case "--help", "-h" -> o.help = true;
                    case "--append" -> o.append = true;
                    case "--no-mid-run-checkpoint" -> o.midRunCheckpoint = false;
                    default -> {
                        if (i + 1 >= args.length || !a.startsWith("--")) {
                            throw new IllegalArgumentException("unknown option or missing value: " + a);
                        }
                        String v = args[++i];
                        switch (a) {
                            case "--pipelines" -> o.pipelines = Arrays.stream(v.split(","))
                                    .map(String::trim).filter(s -> !s.isEmpty()).toList();
                            case "--packets" -> o.packets = count(a, v);
                            case "--flows" -> o.flows = Math.toIntExact(count(a, v));
                            case "--skew" -> o.skew = number(a, v);
                            case "--parallelism" -> o.parallelism = Math.toIntExact(count(a, v));
                            case "--checkpoint-interval" -> o.checkpointInterval = duration(a, v);
                            case "--state-backend" -> o.stateBackend = v.trim().toLowerCase(Locale.ROOT);
                            case "--state-cache" -> o.stateCache = bytes(a, v);
                            case "--seed" -> o.seed = Long.decode(v);
                            case "--rate" -> o.rate = count(a, v);
                            case "--links" -> o.links = Math.toIntExact(count(a, v));
                            case "--batch" -> o.batch = Math.toIntExact(count(a, v));
                            case "--warmup-packets" -> o.warmupPackets = count(a, v);
                            case "--repeat" -> o.repeat = Math.toIntExact(count(a, v));
                            case "--progress-interval" -> o.progressInterval = duration(a, v);
                            case "--output" -> o.output = v;
                            default -> throw new IllegalArgumentException("unknown option: " + a);
                        }
                    }
                }
            }
            if (o.pipelines.isEmpty()) {
                throw new IllegalArgumentException("--pipelines must name at least one pipeline");
            }
            if (o.append && o.output == null) {
                throw new IllegalArgumentException("--append needs --output FILE");
            }
            if (o.repeat < 1) {
                throw new IllegalArgumentException("--repeat must be >= 1, got " + o.repeat);
            }
            if (o.warmupPackets < 0) {
                throw new IllegalArgumentException("--warmup-packets must be >= 0, got " + o.warmupPackets);
            }
            if (o.progressInterval.isNegative() || o.progressInterval.isZero()) {
                throw new IllegalArgumentException("--progress-interval must be > 0, got " + o.progressInterval);
            }
            Pipelines.select(o.pipelines); // unknown names fail here, before anything runs
            o.workload(); // so do workload limits
            new PipelineRunner.Setup(o.parallelism, o.checkpointInterval, o.midRunCheckpoint, o.progressInterval,
                    o.stateBackend);
            return o;
        }

        /** The workload the options describe. */
        public Workload workload() {
            return new Workload(packets, flows, skew, seed, rate, links, batch);
        }

        /** The pipelines' settings for {@code workload}: the issue's, with the flow meter's table cache. */
        PipelineSettings settings(Workload workload) {
            return PipelineSettings.standard(workload).withStateCache(stateCache);
        }

        /** {@code 67108864}, {@code 64M} (binary: 64·2²⁰), {@code 512k}, {@code 0}. */
        static long bytes(String option, String v) {
            String s = v.replace("_", "").trim();
            long unit = 1;
            char last = s.isEmpty() ? ' ' : Character.toLowerCase(s.charAt(s.length() - 1));
            if (last == 'k' || last == 'm' || last == 'g') {
                unit = last == 'k' ? 1L << 10 : last == 'm' ? 1L << 20 : 1L << 30;
                s = s.substring(0, s.length() - 1);
            }
            try {
                long n = Long.parseLong(s);
                if (n >= 0) {
                    return Math.multiplyExact(n, unit);
                }
            } catch (NumberFormatException | ArithmeticException e) {
                // the error below
            }
            throw new IllegalArgumentException(option + " expects bytes >= 0 such as 64M or 0, got '" + v + "'");
        }

        /** {@code 20000000}, {@code 20_000_000}, {@code 20M}, {@code 100k}. */
        static long count(String option, String v) {
            String s = v.replace("_", "").trim();
            long unit = 1;
            if (s.endsWith("k") || s.endsWith("K")) {
                unit = 1_000;
            } else if (s.endsWith("M") || s.endsWith("m")) {
                unit = 1_000_000;
            } else if (s.endsWith("G") || s.endsWith("g")) {
                unit = 1_000_000_000;
            }
            if (unit != 1) {
                s = s.substring(0, s.length() - 1);
            }
            try {
                return Math.multiplyExact(Long.parseLong(s), unit);
            } catch (NumberFormatException | ArithmeticException e) {
                throw new IllegalArgumentException(option + " expects a count such as 20000000 or 20M, got '" + v
                        + "'");
            }
        }

        static double number(String option, String v) {
            try {
                return Double.parseDouble(v);
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException(option + " expects a number, got '" + v + "'");
            }
        }

        /** {@code 10s}, {@code 500ms}, {@code 2m}, or ISO-8601 ({@code PT10S}). */
        static Duration duration(String option, String v) {
            String s = v.trim().toLowerCase(Locale.ROOT);
            try {
                if (s.startsWith("pt")) {
                    return Duration.parse(v.trim());
                } else if (s.endsWith("ms")) {
                    return Duration.ofMillis(Long.parseLong(s.substring(0, s.length() - 2)));
                } else if (s.endsWith("s")) {
                    return Duration.ofSeconds(Long.parseLong(s.substring(0, s.length() - 1)));
                } else if (s.endsWith("m")) {
                    return Duration.ofMinutes(Long.parseLong(s.substring(0, s.length() - 1)));
                }
            } catch (RuntimeException e) {
                // fall through to the error below
            }
            throw new IllegalArgumentException(option + " expects a duration such as 10s or 500ms, got '" + v + "'");
        }
    }
}
