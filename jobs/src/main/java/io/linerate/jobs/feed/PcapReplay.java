package io.linerate.jobs.feed;

import io.linerate.jobs.cli.DurationConverter;
import io.linerate.jobs.cli.Terminals;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.BooleanSupplier;
import java.util.function.LongConsumer;

import io.linerate.jobs.format.PacketBatch;
import io.linerate.jobs.format.PacketBatchCodec;
import io.linerate.jobs.local.FeedContext;
import io.linerate.jobs.local.Feeder;
import io.linerate.jobs.pcap.CaptureReader;
import io.linerate.jobs.pcap.PacketVisitor;
import io.linerate.jobs.pcap.PcapFormatException;
import io.linerate.jobs.pcap.SkipReason;

/**
 * Replays capture files (pcap, pcapng, plain or gzip-compressed: whatever {@link CaptureReader} reads) to a Kafka
 * topic as {@link PacketBatch}es in the v1 binary encoding, keyed by observation point (decimal text).
 *
 * <p>Every packet of the files gets observation point {@code observationPoint}, or {@code observationPoint +}
 * the pcapng interface id with {@code perInterface}; a batch holds packets of one observation point in capture
 * order and is sent when it holds {@code batchSize} packets, before the sender waits for pacing, and at the end of
 * each pass. Timestamps are the capture's, in epoch ms (floored). Pacing: as fast as possible (default), at
 * {@code rate} packets per second of wall clock, or at the capture's own pace times {@code speed}.
 *
 * <p>{@link #STANDARD_INPUT} ({@code -}) as a file reads a capture from standard input, once (then {@code loops}
 * must be 1, and progress has no total). Whenever standard input has nothing more to read yet, the batches begun
 * are sent before the replay waits for more, so a live capture ({@code tcpdump -U -w -}) reaches Kafka as its
 * packets arrive rather than when a batch fills.
 *
 * <p>Looping: pass k (from 0) shifts every timestamp by k × (span + 1 ms), span = last − first timestamp (ms) of
 * the first pass, so the passes follow each other in event time without overlapping. {@code loops = 0} repeats
 * until stopped.
 *
 * <p>Records the reader skips are counted by {@link SkipReason}; so are packets the batch format cannot hold
 * ({@value #NEGATIVE_TIMESTAMP}: before 1970; {@value #OUT_OF_RANGE}: a field outside the format's ranges).
 */
public final class PcapReplay implements Feeder {

    /** Skip reason of a packet stamped before 1970 (the format's timestamps are ≥ 0). */
    public static final String NEGATIVE_TIMESTAMP = "NEGATIVE_TIMESTAMP";
    /** Skip reason of a packet the batch format rejects (e.g. an IP length below the header's). */
    public static final String OUT_OF_RANGE = "OUT_OF_RANGE";
    /**
     * Batches begun at once with {@code --per-interface}, one per interface: past this many, the begun ones are sent
     * (each observation point's packets stay in order) and memory stays bounded however many interfaces a capture has.
     */
    static final int MAX_OPEN_BATCHES = 1024;

    /**
     * The FILE that stands for standard input: a capture piped in ({@code zstdcat trace.pcap.zst | … replay -}, or
     * a live {@code tcpdump -U -w -}), read once, as it arrives.
     */
    public static final Path STANDARD_INPUT = Path.of("-");

    final List<Path> files;
    private final InputStream standardInput;
    final int observationPoint;
    final boolean perInterface;
    final int batchSize;
    final double rate;
    final double speed;
    final int loops;
    final PrintStream progressOut;
    final boolean terminal;
    final Duration progressInterval;

    private PcapReplay(Builder b) {
        files = List.copyOf(b.files);
        standardInput = b.standardInput;
        observationPoint = b.observationPoint;
        perInterface = b.perInterface;
        batchSize = b.batchSize;
        rate = b.rate;
        speed = b.speed;
        loops = b.loops;
        progressOut = b.progressOut;
        terminal = b.terminal == null ? Terminals.standardOutput() : b.terminal;
        progressInterval = b.progressInterval;
    }

    public static Builder builder(List<Path> files) {
        return new Builder(files);
    }

    /**
     * Why {@code file}, not a readable regular file, cannot be replayed, for an error message: {@code " (no such
     * file)"}, {@code " (a directory)"} or {@code " (not readable or not a regular file)"}.
     */
    public static String whyNotReadable(Path file) {
        return Files.isDirectory(file) ? " (a directory)"
                : Files.exists(file) ? " (not readable or not a regular file)" : " (no such file)";
    }

    @Override
    public String description() {
        String pace = rate > 0 ? String.format(Locale.ROOT, rate >= 10 ? "at %.0f packets/s" : "at %.3g packets/s", rate)
                : speed > 0 ? String.format(Locale.ROOT, "at %sx the capture's pace", speed) : "as fast as possible";
        String times = loops == 0 ? ", looping until stopped" : loops > 1 ? ", " + loops + " times" : "";
        return "replay of " + files + " (observation point " + observationPoint + (perInterface ? " + interface id" : "")
                + ") " + pace + times;
    }

    /** Packets: what {@link #feed} counts (a Kafka record holds a batch of them). */
    @Override
    public String unit() {
        return "packets";
    }

    @Override
    public void feed(FeedContext context) throws Exception {
        FeedSummary summary = run(context.bootstrapServers(), context.topic(), context::stopRequested, context::sent);
        context.eventTimes(summary.firstEventMillis(), summary.lastEventMillis(), summary.lastRecordEventMillis());
    }

    /** {@link #run(String, String, Map, BooleanSupplier, LongConsumer)} without further producer properties. */
    public FeedSummary run(String bootstrapServers, String topic, BooleanSupplier stop, LongConsumer acked)
            throws Exception {
        return run(bootstrapServers, topic, Map.of(), stop, acked);
    }

    /**
     * Replays the files to {@code topic}; returns when every pass is written and acknowledged, or soon after
     * {@code stop} turns true (what was read is flushed and acknowledged first).
     *
     * @param producerProperties further properties of the feeder's producer (security settings…), checked as
     *     the jobs' sinks check them; {@code bootstrap.servers}, {@code enable.idempotence}, the serializers and
     *     the transactional settings are the feeder's own and refused
     * @param acked called with the packets of each acknowledged batch (from the producer's thread)
     * @throws IOException if a file cannot be read; if it is malformed, a {@link MalformedCaptureException} with
     *     the file and byte offset in the message; the packets before the error have been sent
     */
    public FeedSummary run(String bootstrapServers, String topic, Map<String, String> producerProperties,
            BooleanSupplier stop, LongConsumer acked) throws Exception {
        try (FeedProducer producer = new FeedProducer(bootstrapServers, topic, "linerate-replay", producerProperties,
                acked)) {
            Run run = new Run(producer, stop);
            try {
                run.replay();
            } catch (Abort a) {
                throw a.cause;
            } catch (MalformedCaptureException e) {
                producer.flush(); // the packets before the error are sent; say how many
                e.sentBeforeIt = summary(producer, run);
                throw e;
            } finally {
                run.progress.finish(run.bytesRead, run.total, run.packets);
            }
            producer.flush();
            return summary(producer, run);
        }
    }

    private static FeedSummary summary(FeedProducer producer, Run run) {
        return new FeedSummary(producer.ackedUnits(), producer.ackedRecords(), producer.ackedBytes(), run.bytesRead,
                run.skipped, (System.nanoTime() - run.startNanos) / 1e9, run.sent.first(), run.sent.last(),
                run.lastBatchTime);
    }

    /**
     * A capture file is malformed ({@link PcapFormatException} as the cause, the file and byte offset in the
     * message). The packets before the error were sent: {@link #sentBeforeIt()} says what was sent and skipped.
     */
    public static final class MalformedCaptureException extends IOException {
        private FeedSummary sentBeforeIt;

        MalformedCaptureException(String message, PcapFormatException cause) {
            super(message, cause);
        }

        /** What the replay sent and skipped before the error, the failing file's skipped records included. */
        public FeedSummary sentBeforeIt() {
            return sentBeforeIt;
        }
    }

    /**
     * Runs {@code onIdle} before a read that would wait for input ({@code available() == 0}): a pipe whose writer is
     * slower than the replay (a live capture) gets its packets sent as they come, not when a batch fills.
     */
    static final class FlushWhenIdle extends FilterInputStream {
        private final Runnable onIdle;

        FlushWhenIdle(InputStream in, Runnable onIdle) {
            super(in);
            this.onIdle = onIdle;
        }

        @Override
        public int read() throws IOException {
            idle();
            return in.read();
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            idle();
            return in.read(b, off, len);
        }

        private void idle() throws IOException {
            if (in.available() == 0) {
                onIdle.run();
            }
        }
    }

    /** A checked failure carried out of a {@link PacketVisitor} callback. */
    private static final class Abort extends RuntimeException {
        final Exception cause;

        Abort(Exception cause) {
            super(cause);
            this.cause = cause;
        }
    }

    /** One replay: the reader loop, the visitor that batches, the pacing and the counts. */
    private final class Run implements PacketVisitor {
        final FeedProducer producer;
        final BooleanSupplier stop;
        final long startNanos = System.nanoTime();
        final Pacer pacer;
        final Progress progress;
        final Map<Integer, PacketBatch> batches = new LinkedHashMap<>();
        final Map<String, Long> skipped = new TreeMap<>();
        CaptureReader reader;
        PacketBatch last;
        long bytesRead;
        long fileStart;
        long total;
        long packets;
        int pass;
        long shiftMs;
        /** Event times of every pass; at the end of the first pass, that pass's span (for the shift). */
        final EventTimeRange sent = new EventTimeRange();
        /** The largest smallest timestamp of a batch sent: the latest record time the jobs' watermarks follow. */
        long lastBatchTime = FeedSummary.NO_EVENT_TIME;
        long firstNanos = Long.MIN_VALUE;
        boolean stopped;

        Run(FeedProducer producer, BooleanSupplier stop) {
            this.producer = producer;
            this.stop = () -> stop.getAsBoolean() || Thread.currentThread().isInterrupted();
            this.pacer = new Pacer(rate, startNanos);
            // an interval the options accept may exceed 64-bit nanoseconds (292 years): no line before then
            this.progress = new Progress(progressOut, terminal,
                    progressInterval.compareTo(Duration.ofNanos(Long.MAX_VALUE)) >= 0 ? Long.MAX_VALUE
                            : progressInterval.toNanos());
        }

        void replay() throws Exception {
            long passBytes = 0;
            for (Path f : files) {
                passBytes += f.equals(STANDARD_INPUT) ? 0 : Files.size(f);
            }
            total = loops == 0 || files.contains(STANDARD_INPUT) ? -1 : passBytes * loops;
            for (pass = 0; loops == 0 || pass < loops; pass++) {
                long packetsBefore = packets;
                for (Path file : files) {
                    fileStart = bytesRead;
                    boolean stdin = file.equals(STANDARD_INPUT);
                    try (CaptureReader r = stdin ? CaptureReader.open(new FlushWhenIdle(standardInput, this::flushAll))
                            : CaptureReader.open(file)) {
                        reader = r;
                        long records = 0;
                        while (!(stopped |= this.stop.getAsBoolean()) && r.next(this)) {
                            if ((++records & 255) == 0) {
                                reportProgress();
                            }
                        }
                        bytesRead = fileStart + r.sourceOffset();
                        for (SkipReason reason : SkipReason.values()) {
                            count(reason.name(), r.skipped(reason));
                        }
                    } catch (PcapFormatException e) {
                        if (reader != null) { // null when the file header itself failed
                            bytesRead = fileStart + reader.sourceOffset();
                            for (SkipReason reason : SkipReason.values()) {
                                count(reason.name(), reader.skipped(reason));
                            }
                        }
                        flushAll(); // the packets before the error are sent
                        throw new MalformedCaptureException("malformed capture " + (stdin ? "on standard input"
                                : file) + " at " + e.getMessage(), e);
                    } finally {
                        reader = null;
                    }
                    progress.update(bytesRead, total, packets);
                    if (stopped) {
                        break;
                    }
                }
                flushAll();
                if (pass == 0) {
                    shiftMs = packets == 0 ? 0 : sent.last() - sent.first() + 1;
                }
                if (stopped || packets == packetsBefore) {
                    break; // nothing to loop over
                }
            }
            flushAll();
        }

        void reportProgress() {
            progress.update(fileStart + reader.sourceOffset(), total, packets);
        }

        void count(String reason, long n) {
            if (n > 0) {
                skipped.merge(reason, n, Long::sum);
            }
        }

        @Override
        public void ipv4(long timestampNanos, int src, int dst, int srcPort, int dstPort, int protocol, int tcpFlags,
                         int ipLength) {
            PacketBatch b = prepare(timestampNanos);
            if (b != null) {
                try {
                    b.addIpv4(millis(timestampNanos), src, dst, srcPort, dstPort, protocol, tcpFlags, ipLength);
                } catch (IllegalArgumentException e) {
                    count(OUT_OF_RANGE, 1);
                    return;
                }
                added(b, millis(timestampNanos));
            }
        }

        @Override
        public void ipv6(long timestampNanos, long srcHigh, long srcLow, long dstHigh, long dstLow, int srcPort,
                         int dstPort, int protocol, int tcpFlags, int ipLength) {
            PacketBatch b = prepare(timestampNanos);
            if (b != null) {
                try {
                    b.addIpv6(millis(timestampNanos), srcHigh, srcLow, dstHigh, dstLow, srcPort, dstPort, protocol,
                            tcpFlags, ipLength);
                } catch (IllegalArgumentException e) {
                    count(OUT_OF_RANGE, 1);
                    return;
                }
                added(b, millis(timestampNanos));
            }
        }

        long millis(long nanos) {
            return Math.floorDiv(nanos, 1_000_000L) + pass * shiftMs;
        }

        /** Paces, then returns the batch the packet goes to (sending it first if the packet would overstretch it). */
        PacketBatch prepare(long timestampNanos) {
            long ms = millis(timestampNanos);
            // before 1970 in the capture, whatever the pass: a later pass's shift must not let it through
            if (Math.floorDiv(timestampNanos, 1_000_000L) < 0) {
                count(NEGATIVE_TIMESTAMP, 1);
                return null;
            }
            long point = (long) observationPoint + (perInterface ? reader.interfaceId() : 0);
            if (point > Integer.MAX_VALUE) { // would wrap to a negative observation point
                count(OUT_OF_RANGE, 1);
                return null;
            }
            pace(timestampNanos + pass * shiftMs * 1_000_000L);
            int op = (int) point;
            PacketBatch b = last;
            if (b == null || b.observationPoint() != op) {
                b = batches.get(op);
                if (b == null) {
                    if (batches.size() >= MAX_OPEN_BATCHES) {
                        // one batch per interface: a capture of very many interfaces would hold them all
                        flushAll();
                        batches.clear();
                    }
                    // small at first, growing with its packets, so that many interfaces cost little
                    b = new PacketBatch(op, Math.min(batchSize, 64));
                    batches.put(op, b);
                }
                last = b;
            }
            if (!b.isEmpty() && Math.max(b.maxTimestamp(), ms) - Math.min(b.minTimestamp(), ms) > PacketBatch.MAX_SPAN_MS) {
                send(b);
            }
            return b;
        }

        void added(PacketBatch b, long ms) {
            packets++;
            sent.add(ms);
            if (b.size() >= batchSize) {
                send(b);
            }
        }

        void pace(long captureNanos) {
            long due;
            if (speed > 0) {
                if (firstNanos == Long.MIN_VALUE) {
                    firstNanos = captureNanos;
                }
                due = startNanos + (long) ((captureNanos - firstNanos) / speed);
            } else if (rate > 0) {
                due = pacer.dueNanos(packets);
            } else {
                return;
            }
            if (due - System.nanoTime() > 1_000_000L) {
                flushAll(); // nothing waits in a half-full batch while the sender sleeps
                try {
                    if (!Pacer.awaitNanos(due, stop)) {
                        stopped = true;
                    }
                    reportProgress();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    stopped = true;
                }
            }
        }

        void flushAll() {
            for (PacketBatch b : batches.values()) {
                if (!b.isEmpty()) {
                    send(b);
                }
            }
        }

        void send(PacketBatch b) {
            try {
                producer.send(key(b.observationPoint()), PacketBatchCodec.encode(b), b.size());
                lastBatchTime = Math.max(lastBatchTime, b.minTimestamp());
            } catch (Exception e) {
                throw new Abort(e);
            }
            b.clear(b.observationPoint());
        }

        byte[] key(int op) {
            return Integer.toString(op).getBytes(StandardCharsets.UTF_8);
        }
    }

    /** Settings; every setter checks its value and names the command-line option in its error. */
    public static final class Builder {
        private final List<Path> files;
        private InputStream standardInput = System.in;
        private int observationPoint;
        private boolean perInterface;
        private int batchSize = 1000;
        private double rate;
        private double speed;
        private int loops = 1;
        private PrintStream progressOut;
        private Boolean terminal;
        private Duration progressInterval = Duration.ofSeconds(5);

        private Builder(List<Path> files) {
            if (files == null || files.isEmpty()) {
                throw new IllegalArgumentException("at least one capture FILE is required");
            }
            for (Path f : files) {
                if (f.equals(STANDARD_INPUT)) {
                    if (files.indexOf(f) != files.lastIndexOf(f)) {
                        throw new IllegalArgumentException("FILE - (standard input) can be given once, got "
                                + files);
                    }
                } else if (!Files.isRegularFile(f) || !Files.isReadable(f)) {
                    throw new IllegalArgumentException("FILE " + f + " is not a readable file" + whyNotReadable(f));
                }
            }
            this.files = List.copyOf(files);
        }

        /** {@code --observation-point}: the observation point of the packets (default 0). */
        public Builder observationPoint(int value) {
            if (value < 0) {
                throw new IllegalArgumentException("--observation-point must be >= 0, got " + value);
            }
            observationPoint = value;
            return this;
        }

        /** {@code --per-interface}: observation point + the pcapng interface id (default false). */
        public Builder perInterface(boolean value) {
            perInterface = value;
            return this;
        }

        /** {@code --batch-size}: packets per Kafka record at most (default 1000). */
        public Builder batchSize(int value) {
            if (value < 1 || value > SyntheticTraffic.MAX_BATCH_SIZE) {
                throw new IllegalArgumentException("--batch-size must be in [1, " + SyntheticTraffic.MAX_BATCH_SIZE
                        + "] (a record stays under 1 MiB), got " + value);
            }
            batchSize = value;
            return this;
        }

        /** {@code --rate}: packets per second of wall clock, 0 = as fast as possible (default 0). */
        public Builder rate(double value) {
            if (!(value >= 0 && value <= 1e9)) {
                throw new IllegalArgumentException("--rate must be in [0, 1e9] packets per second, got " + value);
            }
            rate = value;
            return this;
        }

        /** {@code --speed}: the capture's own pace times this, 0 = not paced by the capture (default 0). */
        public Builder speed(double value) {
            if (!(value >= 0 && value <= 1e6)) {
                throw new IllegalArgumentException("--speed must be in [0, 1e6], got " + value);
            }
            speed = value;
            return this;
        }

        /** {@code --loop}: passes over the files, 0 = until stopped (default 1). */
        public Builder loops(int value) {
            if (value < 0) {
                throw new IllegalArgumentException("--loop must be >= 0 (0: until stopped), got " + value);
            }
            loops = value;
            return this;
        }

        /** Where progress goes (null: nowhere, the default). */
        public Builder progress(PrintStream out) {
            progressOut = out;
            return this;
        }

        /** Whether the progress goes to a terminal (a redrawn bar) or not (lines); default: detected. */
        public Builder terminal(boolean value) {
            terminal = value;
            return this;
        }

        /** {@code --progress-interval}: time between progress lines off a terminal (default 5s). */
        public Builder progressInterval(Duration value) {
            if (value == null || value.isNegative() || value.isZero()) {
                throw new IllegalArgumentException("--progress-interval must be > 0s, got "
                        + (value == null ? null : DurationConverter.format(value)));
            }
            progressInterval = value;
            return this;
        }

        /** What FILE {@code -} reads (default {@code System.in}); the replay closes it at its end. */
        Builder standardInput(InputStream in) {
            standardInput = in;
            return this;
        }

        public PcapReplay build() {
            if (loops != 1 && files.contains(STANDARD_INPUT)) {
                throw new IllegalArgumentException("--loop must be 1 when a FILE is - (standard input is read once),"
                        + " got " + loops);
            }
            if (rate > 0 && speed > 0) {
                throw new IllegalArgumentException("--rate and --speed exclude each other, got --rate " + rate
                        + " and --speed " + speed);
            }
            return new PcapReplay(this);
        }
    }
}
