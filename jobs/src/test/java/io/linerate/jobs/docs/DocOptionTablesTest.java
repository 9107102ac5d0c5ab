package io.linerate.jobs.docs;

import static org.assertj.core.api.Assertions.assertThat;

import io.linerate.jobs.cli.Main;
import java.io.IOException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;

/**
 * The options the documentation names, against the commands themselves ({@link Main#commandLine()}): every option
 * named anywhere exists; every option table row names options of the command its section documents, with the
 * default its {@code --help} shows; each command's section names every option; the demo's synopsis lists them all.
 */
class DocOptionTablesTest {

    static final Pattern OPTION = Pattern.compile("(?<![-\\w])--[a-z][-a-zA-Z0-9]*");

    /** Options of other programs the docs name (Kafka's tools, tcpdump, the JVM, Flink's CLI, coreutils' env). */
    static final Set<String> FOREIGN = Set.of("--command-config", "--immediate-mode", "--nano", "--add-opens",
            "--add-exports", "--configDir", "--drain", "--default-signal", "--sun-misc-unsafe-memory-access");

    static final List<String> JOBS = List.of("heavy-hitters", "flow-meter", "dedup");

    /** Section headings (without '#' and backticks) that document commands, per file. */
    static final Map<String, Map<String, List<String>>> SECTIONS = Map.of(
            "docs/jobs.md", Map.of("heavy-hitters", List.of("heavy-hitters"), "flow-meter", List.of("flow-meter"),
                    "dedup", List.of("dedup")),
            "docs/feeding.md", Map.of("generate", List.of("generate"), "replay", List.of("replay")),
            "docs/cli.md", Map.of("Shared options (mixins for the jobs)", JOBS, "demo", List.of("demo")));

    static final CommandLine ROOT = Main.commandLine();

    /** The repository folder: the nearest parent of the working directory holding README.md and docs/. */
    static Path root() {
        Path p = Path.of("").toAbsolutePath();
        while (!Files.isDirectory(p.resolve("docs")) || !Files.exists(p.resolve("README.md"))) {
            p = p.getParent();
        }
        return p;
    }

    static List<String> lines(String file) throws IOException {
        return Files.readAllLines(root().resolve(file));
    }

    static CommandSpec spec(String command) {
        return ROOT.getSubcommands().get(command).getCommandSpec();
    }

    static List<String> options(String text) {
        List<String> out = new ArrayList<>();
        Matcher m = OPTION.matcher(text);
        while (m.find()) {
            out.add(m.group());
        }
        return out;
    }

    /** The options of a command a user can give, without -h/-V. */
    static Set<String> ownOptions(String command) {
        Set<String> out = new TreeSet<>();
        for (OptionSpec o : spec(command).options()) {
            if (!o.usageHelp() && !o.versionHelp()) {
                out.add(o.longestName());
            }
        }
        return out;
    }

    /**
     * A row of an option table: where it is, the commands its section documents, its first two cells, and whether
     * the second is the option's default (the table's header says "default").
     */
    record Row(String where, List<String> commands, String[] cells, boolean defaults) {
    }

    /** Every table row whose first cell names an option, in a section of {@link #SECTIONS}. */
    static List<Row> rows() throws IOException {
        List<Row> rows = new ArrayList<>();
        for (var file : SECTIONS.entrySet()) {
            List<String> lines = lines(file.getKey());
            List<String> scope = List.of();
            int scopeLevel = 0;
            boolean code = false;
            boolean defaults = false;
            for (int i = 0; i < lines.size(); i++) {
                String l = lines.get(i);
                if (l.startsWith("```")) {
                    code = !code;
                } else if (l.startsWith("#") && !code) {
                    int level = l.indexOf(' ');
                    String heading = l.substring(level + 1).replace("`", "").trim();
                    if (file.getValue().containsKey(heading)) {
                        scope = file.getValue().get(heading);
                        scopeLevel = level;
                    } else if (level <= scopeLevel) {
                        scope = List.of();
                        scopeLevel = 0;
                    }
                } else if (l.startsWith("|") && i + 1 < lines.size() && lines.get(i + 1).startsWith("|---")) {
                    defaults = cells(l)[2].equals("default");
                } else if (l.startsWith("| `--") && !scope.isEmpty()) {
                    rows.add(new Row(file.getKey() + ":" + (i + 1), scope, cells(l), defaults));
                }
            }
        }
        return rows;
    }

    /** A table row's cells, trimmed; index 0 is the text before the first '|'; an escaped \\| is not a border. */
    static String[] cells(String row) {
        String[] cells = row.replace("\\|", "/").split("\\|");
        for (int i = 0; i < cells.length; i++) {
            cells[i] = cells[i].trim();
        }
        return cells;
    }

    /** The first word of a default as the docs or the help state it: "`0s` = until Ctrl-C" is 0s, off is false. */
    static String firstWord(String text) {
        String w = text.replace("`", "").trim().split("[\\s,:()]", 2)[0].toLowerCase(Locale.ROOT);
        return w.equals("off") ? "false" : w;
    }

    /** The default {@code --help} shows for an option: its description's "(default: X)". */
    static String helpDefault(OptionSpec o) {
        String d = String.join(" ", o.description());
        int at = d.indexOf("(default: ");
        return firstWord(d.substring(at + "(default: ".length()));
    }

    static boolean sameDefault(String doc, String help) {
        if (doc.equals(help)) {
            return true;
        }
        try {
            return number(doc).compareTo(number(help)) == 0;
        } catch (NumberFormatException e) {
            return false;
        }
    }

    static BigDecimal number(String s) {
        return s.startsWith("0x") ? new BigDecimal(new BigInteger(s.substring(2), 16)) : new BigDecimal(s);
    }

    @Test
    void everyOptionTheDocsNameExists() throws IOException {
        Set<String> known = new TreeSet<>(FOREIGN);
        known.addAll(List.of("--help", "--version"));
        for (String c : ROOT.getSubcommands().keySet()) {
            known.addAll(ownOptions(c));
        }
        List<String> unknown = new ArrayList<>();
        List<Path> docs;
        try (Stream<Path> s = Stream.concat(Files.list(root().resolve("docs")),
                Files.list(root().resolve("docs/operators")))) {
            docs = new ArrayList<>(s.filter(p -> p.toString().endsWith(".md"))
                    // BENCHMARKS.md documents the benchmark harnesses' options, not linerate's
                    .filter(p -> !p.endsWith("BENCHMARKS.md")).sorted().toList());
        }
        docs.add(0, root().resolve("README.md"));
        for (Path doc : docs) {
            List<String> lines = Files.readAllLines(doc);
            for (int i = 0; i < lines.size(); i++) {
                for (String o : options(lines.get(i))) {
                    if (!known.contains(o)) {
                        unknown.add(root().relativize(doc) + ":" + (i + 1) + " " + o);
                    }
                }
            }
        }
        assertThat(docs).hasSizeGreaterThan(10);
        assertThat(unknown).as("options named in the docs that no command has").isEmpty();
    }

    @Test
    void optionTablesNameTheSectionsCommandsOptionsWithTheirHelpDefaults() throws IOException {
        List<Row> rows = rows();
        List<String> wrong = new ArrayList<>();
        for (Row r : rows) {
            List<String> opts = options(r.cells()[1]);
            String[] defaults = r.cells()[2].split(",\\s*");
            for (int k = 0; k < opts.size(); k++) {
                String doc = firstWord(defaults.length == opts.size() ? defaults[k] : r.cells()[2]);
                for (String c : r.commands()) {
                    OptionSpec o = spec(c).findOption(opts.get(k));
                    if (o == null) {
                        wrong.add(r.where() + " " + c + " has no " + opts.get(k));
                    } else if (r.defaults() && !sameDefault(doc, helpDefault(o))) {
                        wrong.add(r.where() + " " + c + " " + opts.get(k) + ": the doc says " + doc
                                + ", --help says " + helpDefault(o));
                    }
                }
            }
        }
        assertThat(rows).hasSizeGreaterThan(90);
        assertThat(wrong).isEmpty();
    }

    @Test
    void eachCommandsSectionsTabulateEveryOption() throws IOException {
        Map<String, Set<String>> tabulated = new java.util.TreeMap<>();
        for (Row r : rows()) {
            for (String c : r.commands()) {
                tabulated.computeIfAbsent(c, x -> new TreeSet<>()).addAll(options(r.cells()[1]));
            }
        }
        Set<String> flinkOptions = new TreeSet<>();
        for (OptionSpec o : spec("demo").mixins().get("flink").options()) {
            flinkOptions.add(o.longestName());
        }
        List<String> missing = new ArrayList<>();
        for (String c : ROOT.getSubcommands().keySet()) {
            Set<String> want = ownOptions(c);
            if (c.equals("demo")) {
                want.removeAll(flinkOptions); // "the Flink options above": the shared table
            }
            want.removeAll(tabulated.getOrDefault(c, Set.of()));
            want.forEach(o -> missing.add(c + " " + o));
        }
        assertThat(tabulated.keySet()).containsAll(ROOT.getSubcommands().keySet());
        assertThat(missing).as("options no table of their command's docs lists").isEmpty();
    }

    /** cli.md's demo synopsis, {@code demo [--job heavy-hitters] ...}, lists every option of {@code demo}. */
    @Test
    void demoSynopsisListsEveryOption() throws IOException {
        List<String> lines = lines("docs/cli.md");
        int start = lines.indexOf("### `demo`");
        Set<String> listed = new LinkedHashSet<>();
        for (int i = start + 1; !lines.get(i).startsWith("#") && listed.isEmpty(); i++) {
            if (lines.get(i).startsWith("```") && lines.get(i + 1).contains(" demo [")) {
                for (int j = i + 1; !lines.get(j).startsWith("```"); j++) {
                    listed.addAll(options(lines.get(j)));
                }
            }
        }
        assertThat(listed).containsExactlyInAnyOrderElementsOf(ownOptions("demo"));
    }
}
