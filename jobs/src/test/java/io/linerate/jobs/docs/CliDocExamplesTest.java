package io.linerate.jobs.docs;

import static org.assertj.core.api.Assertions.assertThat;

import io.linerate.jobs.cli.FlinkOptions;
import io.linerate.jobs.cli.Main;
import java.io.IOException;
import java.lang.reflect.Field;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;
import picocli.CommandLine.ParseResult;

/**
 * Every linerate command line shown in README.md and docs/*.md: parsed by {@link Main#commandLine()}, then checked
 * as far as the command checks before it contacts Kafka or starts Flink (FlinkOptions.validate(), the job builder,
 * defining the job graph; generate's traffic(), replay's replay()).
 */
class CliDocExamplesTest {

    @TempDir
    static Path dir;

    /** Splits a documented command line (after the jar) into arguments; files are made in the temp dir. */
    static String[] args(String line) throws IOException {
        List<String> out = new ArrayList<>();
        for (String a : line.trim().split("\\s+")) {
            if (a.endsWith(".pcap") || a.endsWith(".pcapng") || a.endsWith(".pcap.gz") || a.equals("FILE")
                    || a.endsWith(".properties")) {
                Path f = dir.resolve(a);
                if (!Files.exists(f)) {
                    Files.write(f, new byte[0]);
                }
                out.add(f.toString());
            } else {
                out.add(a);
            }
        }
        return out.toArray(String[]::new);
    }

    static Object call(Object target, String method) throws Exception {
        Method m = target.getClass().getDeclaredMethod(method);
        m.setAccessible(true);
        try {
            return m.invoke(target);
        } catch (InvocationTargetException e) {
            throw (Exception) e.getCause();
        }
    }

    static Object field(Object target, String name) throws Exception {
        Field f = target.getClass().getDeclaredField(name);
        f.setAccessible(true);
        return f.get(target);
    }

    /** Parses and runs every check the command makes before it connects or starts anything. */
    static void check(String line) throws Exception {
        CommandLine cl = Main.commandLine();
        ParseResult pr = cl.parseArgs(args(line));
        assertThat(pr.hasSubcommand()).as(line).isTrue();
        ParseResult sub = pr.subcommand();
        Object cmd = sub.commandSpec().userObject();
        String name = sub.commandSpec().name();
        switch (name) {
            case "heavy-hitters", "flow-meter", "dedup" -> {
                FlinkOptions flink = (FlinkOptions) field(cmd, "flink");
                flink.validate();
                Object job = call(cmd, "job");
                Object topics = call(cmd, "topics");
                StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(flink.configuration());
                for (Method m : job.getClass().getMethods()) {
                    if (m.getName().equals("define") && m.getParameterCount() == 2) {
                        m.invoke(job, env, topics);
                    }
                }
                assertThat(env.getStreamGraph(false).getStreamNodes()).as(line).isNotEmpty();
            }
            case "generate" -> call(cmd, "traffic");
            case "replay" -> call(cmd, "replay");
            case "demo" -> ((FlinkOptions) field(cmd, "flink")).validate();
            default -> throw new AssertionError(name);
        }
    }

    /** A linerate command line: after the jar, {@code linerate} or {@code Main}, up to a pipe or the line's end. */
    static final Pattern COMMAND = Pattern.compile(
            "(?:\\.jar|^\\s*linerate|\\|\\s*linerate|io\\.linerate\\.jobs\\.cli\\.Main)\\s+"
                    + "((?:heavy-hitters|flow-meter|dedup|generate|replay|demo)\\b[^|]*)");

    /**
     * Every command line in a code block of README.md and docs/*.md (continuation lines joined), but synopses with
     * {@code [--option]}s; each file's lines in order, each once.
     */
    static List<String> documentedCommandLines() throws IOException {
        Set<String> out = new LinkedHashSet<>();
        Path root = DocOptionTablesTest.root();
        List<Path> docs = new ArrayList<>(List.of(root.resolve("README.md")));
        try (Stream<Path> s = Files.list(root.resolve("docs"))) {
            s.filter(p -> p.toString().endsWith(".md")).sorted().forEach(docs::add);
        }
        for (Path doc : docs) {
            List<String> lines = Files.readAllLines(doc);
            boolean code = false;
            for (int i = 0; i < lines.size(); i++) {
                String line = lines.get(i);
                if (line.startsWith("```")) {
                    code = !code;
                    continue;
                }
                while (code && line.endsWith("\\") && i + 1 < lines.size()) {
                    line = line.substring(0, line.length() - 1) + " " + lines.get(++i).trim();
                }
                Matcher m = COMMAND.matcher(line);
                if (code && m.find() && !line.contains("[--")) {
                    out.add(m.group(1).trim().replaceAll("\\s+", " "));
                }
            }
        }
        return new ArrayList<>(out);
    }

    /** The command lines of the docs as they are now: an example added or changed is checked without a copy here. */
    @Test
    void everyCommandLineInTheDocs() throws Exception {
        List<String> lines = documentedCommandLines();
        assertThat(lines).hasSizeGreaterThanOrEqualTo(20)
                .contains("replay -", "dedup --bootstrap-servers kafka:9092 --input-topic events --output-topic "
                        + "unique-events --duplicates-topic duplicates --output-format raw --key-field id --timestamp-field ts "
                        + "--scope-field tenant");
        for (String line : lines) {
            try {
                check(line);
            } catch (Exception | AssertionError e) {
                throw new AssertionError("documented command line fails: " + line + ": " + e, e);
            }
        }
    }

    @Test
    void readme() throws Exception {
        check("heavy-hitters --bootstrap-servers kafka:9092 \\".replace("\\", "")
                + " --input-topic packets --output-topic hh-reports --alerts-topic hh-alerts --dead-letter-topic dead-letters"
                + " --window 1m --top-k 20 --phi 0.01 --weight bytes --parallelism 4 --checkpoint-dir s3://bucket/checkpoints");
        check("replay --bootstrap-servers kafka:9092 --input-topic packets capture.pcapng");
        check("generate --bootstrap-servers kafka:9092 --input-topic packets --rate 50000 --count 0");
        check("flow-meter --bootstrap-servers kafka:9093"
                + " --kafka-property security.protocol=SASL_SSL --kafka-property sasl.mechanism=SCRAM-SHA-512"
                + " --kafka-config client.properties --producer-property compression.type=zstd --capacity 200000"
                + " --checkpoint-dir s3://bucket/checkpoints");
    }

    @Test
    void jobsMdHeavyHitters() throws Exception {
        check("heavy-hitters --bootstrap-servers kafka-1:9092,kafka-2:9092"
                + " --input-topic packets --output-topic hh-reports --alerts-topic hh-alerts --dead-letter-topic dead-letters"
                + " --window 1m --top-k 20 --phi 0.01 --weight bytes --item five-tuple"
                + " --alert-fraction 0.2 --alert-min-window-weight 1000000"
                + " --parallelism 4 --state-backend heap --checkpoint-interval 10s --checkpoint-dir s3://bucket/checkpoints");
        check("heavy-hitters --bootstrap-servers localhost:9092 --bounded");
    }

    @Test
    void jobsMdFlowMeter() throws Exception {
        check("flow-meter --bootstrap-servers kafka:9092"
                + " --input-topic packets --output-topic flows --dead-letter-topic dead-letters"
                + " --capacity 200000 --idle-timeout 30s --active-timeout 30m --checkpoint-interval 10s --parallelism 4"
                + " --checkpoint-dir s3://bucket/checkpoints");
        check("flow-meter --bootstrap-servers kafka:9092 --bounded --memory-budget 64m"
                + " --checkpoint-dir s3://bucket/checkpoints");
    }

    @Test
    void jobsMdDedup() throws Exception {
        check("dedup --bootstrap-servers kafka:9092"
                + " --input-topic events --output-topic unique-events --duplicates-topic duplicates"
                + " --key-field event_id --timestamp-field ts --scope-field tenant"
                + " --horizon 10m --expected-rate 5000 --fpp 0.001 --checkpoint-dir s3://bucket/checkpoints");
        check("dedup --bootstrap-servers kafka:9092 --input-topic events --output-topic unique-events"
                + " --duplicates-topic duplicates --output-format raw --key-field id --timestamp-field ts --scope-field tenant");
    }

    @Test
    void cliMdDemoUsage() throws Exception {
        check("demo --job heavy-hitters --duration 0s --rate 20000"
                + " --window 10s --top-k 10 --heavy-hitter 0.2 --inject-after 20s --pcap FILE --partitions 2"
                + " --parallelism 1 --checkpoint-interval 10s --transaction-timeout 10m --state-backend heap"
                + " --checkpoint-dir file:///tmp/cp");
    }

    @Test
    void feedingMd() throws Exception {
        check("generate --bootstrap-servers localhost:9092 --input-topic packets");
        check("replay --input-topic packets --observation-point 1 trace.pcapng");
        check("generate --bootstrap-servers localhost:9092 --input-topic packets");
        check("generate --heavy-hitter 0.2 --inject-after 30s --rate 50000 --count 0");
        check("generate --attack syn-flood --attack-share 0.3 --ipv6-share 0.25");
        check("generate --format events --count 100000 --duplicate-ratio 0.05 --duplicate-window 1000 --tenants 8"
                + " --rate 2000 --input-topic events");
        check("replay --bootstrap-servers localhost:9092 --input-topic packets trace.pcap");
        check("replay --speed 1 --loop 0 --observation-point 10 --per-interface office.pcapng");
        check("replay --rate 100000 --loop 2 monday.pcap tuesday.pcap");
        check("replay equinix-nyc.dirA.20190117-125910.UTC.anon.pcap.gz");
        check("replay -");
    }
    /** cli.md: "Every option has a default, shown in its --help line as (default: ...)"; the two example errors. */
    @Test
    void cliMdDefaultsInHelpAndErrorMessages() throws Exception {
        CommandLine root = Main.commandLine();
        List<String> missing = new ArrayList<>();
        for (var e : root.getSubcommands().entrySet()) {
            for (CommandLine.Model.OptionSpec o : e.getValue().getCommandSpec().options()) {
                if (o.usageHelp() || o.versionHelp()) {
                    continue;
                }
                String desc = String.join(" ", o.description());
                if (!desc.contains("(default: ")) {
                    missing.add(e.getKey() + " " + o.longestName() + ": " + desc);
                }
            }
        }
        assertThat(missing).isEmpty();
        for (String[] c : new String[][] {
                {"heavy-hitters --parallelism 0", "--parallelism must be in [1, 32768] (Flink's largest max parallelism), got 0"},
                {"heavy-hitters --checkpoint-interval 10", "Invalid value for option '--checkpoint-interval': '10' is not a duration (e.g. 500ms, 10s, 5m, 2h, 1d, PT10S)"}}) {
            CommandLine cl = Main.commandLine();
            java.io.StringWriter err = new java.io.StringWriter();
            cl.setErr(new java.io.PrintWriter(err));
            cl.setOut(new java.io.PrintWriter(new java.io.StringWriter()));
            int code = cl.execute(c[0].split(" "));
            assertThat(code).isEqualTo(2);
            assertThat(err.toString()).contains(c[1]);
        }
    }
}
