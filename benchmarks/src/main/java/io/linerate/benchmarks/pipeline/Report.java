package io.linerate.benchmarks.pipeline;

import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * The markdown report of a benchmark: the settings, one table row per pipeline, and each linerate pipeline's
 * verdict against the targets (≥ 10× its plain-Flink counterpart's packets/s, ≤ 1/10 of its checkpoint
 * size, ≥ 1/2 of the source → discard packets/s).
 */
public final class Report {

    /** Throughput a linerate pipeline must reach, as a multiple of its plain-Flink counterpart. */
    public static final double SPEEDUP_TARGET = 10;
    /** Checkpoint size a linerate pipeline may have at most, as a fraction of its plain-Flink counterpart's. */
    public static final double STATE_TARGET = 0.1;
    /** Throughput a linerate pipeline must reach, as a fraction of source → discard. */
    public static final double CEILING_TARGET = 0.5;

    private Report() {
    }

    /** The report of {@code results} (in run order) with its settings in {@code header}. */
    public static String markdown(String header, List<RunResult> results, List<Pipeline> pipelines) {
        Map<String, RunResult> byName = results.stream()
                .collect(Collectors.toMap(RunResult::pipeline, Function.identity(), (a, b) -> b));
        Map<String, Pipeline> pipelineByName = pipelines.stream()
                .collect(Collectors.toMap(Pipeline::name, Function.identity(), (a, b) -> b));
        Optional<RunResult> discard = Optional.ofNullable(byName.get("discard"));
        StringBuilder md = new StringBuilder();
        md.append(header).append('\n');
        md.append("| pipeline | packets | packets/s | peak heap after GC | peak heap sampled | idle cluster heap "
                + "| checkpoint size (largest) | checkpoints | sink records | packets/s ÷ plain Flink "
                + "| checkpoint ÷ plain Flink | packets/s ÷ discard |\n");
        md.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
        for (RunResult r : results) {
            Optional<RunResult> plain = plainOf(pipelineByName.get(r.pipeline()), byName);
            md.append(String.format(Locale.ROOT,
                    "| %s | %,d | %,.0f | %s | %s | %s | %s | %d | %,d | %s | %s | %s |%n",
                    r.pipeline(), r.packets(), r.packetsPerSecond(), bytes(r.peakHeapAfterGc()),
                    bytes(r.peakHeapUsed()), bytes(r.idleHeap()), bytes(r.checkpointSize()), r.checkpoints(), r.sinkRecords(),
                    plain.map(p -> ratio(r.packetsPerSecond() / p.packetsPerSecond())).orElse("–"),
                    plain.filter(p -> p.checkpointSize() > 0 && r.checkpointSize() >= 0)
                            .map(p -> ratio((double) r.checkpointSize() / p.checkpointSize())).orElse("–"),
                    discard.filter(d -> d != r).map(d -> ratio(r.packetsPerSecond() / d.packetsPerSecond()))
                            .orElse("–")));
        }
        StringBuilder verdicts = new StringBuilder();
        for (RunResult r : results) {
            Pipeline p = pipelineByName.get(r.pipeline());
            if (p == null || !p.hasTargets()) {
                continue;
            }
            Optional<RunResult> plain = plainOf(p, byName);
            verdicts.append("- **").append(r.pipeline()).append("**: ");
            if (plain.isEmpty()) {
                verdicts.append(p.comparedWith().orElseThrow()).append(" was not run; ");
            } else {
                double speedup = r.packetsPerSecond() / plain.get().packetsPerSecond();
                verdicts.append(String.format(Locale.ROOT, "%s× the packets/s of %s (target ≥ %.0f×: %s); ",
                        ratio(speedup), plain.get().pipeline(), SPEEDUP_TARGET, met(speedup >= SPEEDUP_TARGET)));
                if (plain.get().checkpointSize() > 0 && r.checkpointSize() >= 0) {
                    double state = (double) r.checkpointSize() / plain.get().checkpointSize();
                    verdicts.append(String.format(Locale.ROOT, "%s of its checkpoint size (target ≤ %s: %s); ",
                            ratio(state), ratio(STATE_TARGET), met(state <= STATE_TARGET)));
                } else {
                    verdicts.append("checkpoint sizes missing; ");
                }
            }
            if (discard.isPresent()) {
                double ceiling = r.packetsPerSecond() / discard.get().packetsPerSecond();
                verdicts.append(String.format(Locale.ROOT, "%s of the discard packets/s (target ≥ %s: %s)",
                        ratio(ceiling), ratio(CEILING_TARGET), met(ceiling >= CEILING_TARGET)));
            } else {
                verdicts.append("discard was not run");
            }
            verdicts.append('\n');
        }
        if (!verdicts.isEmpty()) {
            md.append("\nAgainst the targets:\n\n").append(verdicts);
        }
        return md.toString();
    }

    private static Optional<RunResult> plainOf(Pipeline p, Map<String, RunResult> byName) {
        return p == null ? Optional.empty() : p.comparedWith().map(byName::get);
    }

    private static String met(boolean met) {
        return met ? "met" : "**missed**";
    }

    static String ratio(double r) {
        if (Double.isNaN(r) || Double.isInfinite(r)) {
            return "–";
        }
        return r >= 10 ? String.format(Locale.ROOT, "%.1f", r)
                : r >= 0.1 ? String.format(Locale.ROOT, "%.2f", r) : String.format(Locale.ROOT, "%.4f", r);
    }

    /** A duration as 10 s, 500 ms or 2 min. */
    public static String duration(java.time.Duration d) {
        long ms = d.toMillis();
        if (ms % 60_000 == 0) {
            return ms / 60_000 + " min";
        }
        return ms % 1000 == 0 ? ms / 1000 + " s" : ms + " ms";
    }

    /** Bytes in binary units (KiB, MiB, GiB); "–" for a negative (missing) value. */
    public static String bytes(long bytes) {
        if (bytes < 0) {
            return "–";
        }
        if (bytes < 1024) {
            return bytes + " B";
        }
        String[] units = {"KiB", "MiB", "GiB", "TiB"};
        double v = bytes;
        int u = -1;
        while (v >= 1024 && u < units.length - 1) {
            v /= 1024;
            u++;
        }
        return String.format(Locale.ROOT, v >= 100 ? "%.0f %s" : "%.1f %s", v, units[u]);
    }
}
