package io.linerate.flink.serializers;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.reflect.Modifier;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.common.typeutils.TypeSerializerSchemaCompatibility;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;

/**
 * One serializer-format fixture, the way Flink's {@code TypeSerializerUpgradeTestBase} pins a serializer, without
 * Flink's version-migration machinery: a serializer configured as an operator configures it, a deterministic
 * value, and what makes two values equal ({@code contents}: for the sketches their byte image).
 *
 * <p>On disk, under the test resources, {@code snapshots/v<snapshot version>/<name>/} holds
 * <ul>
 *   <li>{@value #SNAPSHOT_FILE}: {@code TypeSerializerSnapshot.writeVersionedSnapshot(out,
 *       serializer.snapshotConfiguration())} (the snapshot class name, its version, its bytes: what a checkpoint
 *       holds for the state's serializer);</li>
 *   <li>{@value #VALUE_FILE}: {@code serializer.serialize(value, out)} (what a checkpoint holds for the value).</li>
 * </ul>
 * {@link #check} reads such a directory with the current code; {@link #write} writes the fixture of the current
 * version. A fixture that is not {@link #current()} pins an older value format under a name of its own: it is
 * read and compared, never written or required to be byte-stable. The operators module's fixtures use this class
 * too (through this module's test jar); see docs/STATE-FORMAT.md, "Serializer snapshot fixtures".
 *
 * @param name       the directory name
 * @param serializer the serializer as the fixture's writer (an operator) configures it
 * @param value      builds the same value on every call
 * @param contents   what is compared between two values ({@code equals})
 * @param current    whether the current code writes this fixture (false: a frozen older value format)
 */
public record SnapshotFixture<T>(String name, TypeSerializer<T> serializer, Supplier<T> value,
                                 Function<T, ?> contents, boolean current) {

    public static final String ROOT = "snapshots";
    public static final String SNAPSHOT_FILE = "serializer-snapshot";
    public static final String VALUE_FILE = "value";
    public static final String WRITE_PROPERTY = "linerate.writeSnapshotFixtures";
    public static final String OVERWRITE_PROPERTY = "linerate.overwriteSnapshotFixtures";

    public static <T> SnapshotFixture<T> of(String name, TypeSerializer<T> serializer, Supplier<T> value,
                                            Function<T, ?> contents) {
        return new SnapshotFixture<>(name, serializer, value, contents, true);
    }

    /** This fixture under another name, read and compared but no longer written: an older value format. */
    public SnapshotFixture<T> frozenAs(String oldName) {
        return new SnapshotFixture<>(oldName, serializer, value, contents, false);
    }

    /** The snapshot version the current code writes. */
    public int version() {
        return serializer.snapshotConfiguration().getCurrentVersion();
    }

    /** {@code v<version>/<name>}. */
    public String directory() {
        return "v" + version() + "/" + name;
    }

    public byte[] snapshotBytes() throws IOException {
        DataOutputSerializer out = new DataOutputSerializer(256);
        TypeSerializerSnapshot.writeVersionedSnapshot(out, serializer.snapshotConfiguration());
        return out.getCopyOfBuffer();
    }

    public byte[] valueBytes(T v) throws IOException {
        return serialize(serializer, v);
    }

    private static <T> byte[] serialize(TypeSerializer<T> s, T v) throws IOException {
        DataOutputSerializer out = new DataOutputSerializer(4096);
        s.serialize(v, out);
        return out.getCopyOfBuffer();
    }

    // ---------------------------------------------------------------------------------------------------------
    // writing

    /** Where the writer puts the fixtures: the module's test resources (surefire runs in the module directory). */
    public static Path sourceRoot() {
        return Path.of(System.getProperty("basedir", ".")).resolve("src/test/resources").resolve(ROOT);
    }

    /**
     * Writes every current fixture under {@code root}; a file that exists with other bytes is refused unless
     * {@code overwrite} (a committed fixture stands for what users' checkpoints hold). Returns one line per
     * fixture.
     */
    public static List<String> write(List<SnapshotFixture<?>> all, Path root, boolean overwrite) throws IOException {
        List<String> lines = new ArrayList<>();
        for (SnapshotFixture<?> f : all) {
            if (f.current()) {
                lines.add(f.writeTo(root, overwrite));
            }
        }
        return lines;
    }

    /**
     * The body of each module's {@code WriteSnapshotFixtures}: writes {@code all} under {@link #sourceRoot()},
     * overwriting only with {@code -D}{@value #OVERWRITE_PROPERTY}{@code =true}, and prints what it did.
     */
    public static void writeAndPrint(List<SnapshotFixture<?>> all) throws IOException {
        Path root = sourceRoot();
        for (String line : write(all, root, Boolean.getBoolean(OVERWRITE_PROPERTY))) {
            System.out.println("[WriteSnapshotFixtures] " + line);
        }
        System.out.println("[WriteSnapshotFixtures] written under " + root.toAbsolutePath().normalize());
    }

    private String writeTo(Path root, boolean overwrite) throws IOException {
        Path dir = root.resolve(directory());
        Files.createDirectories(dir);
        byte[] snapshot = snapshotBytes();
        byte[] val = valueBytes(value.get());
        String a = writeFile(dir.resolve(SNAPSHOT_FILE), snapshot, overwrite);
        String b = writeFile(dir.resolve(VALUE_FILE), val, overwrite);
        return String.format(Locale.ROOT, "%-40s snapshot %5d B (%s), value %6d B (%s)", directory(), snapshot.length,
                a, val.length, b);
    }

    private static String writeFile(Path file, byte[] bytes, boolean overwrite) throws IOException {
        if (Files.exists(file)) {
            if (Arrays.equals(Files.readAllBytes(file), bytes)) {
                return "unchanged";
            }
            if (!overwrite) {
                throw new IOException(file + " exists with other bytes: a committed fixture is not rewritten (a "
                        + "format change adds a new version directory or a frozen fixture; set -D"
                        + OVERWRITE_PROPERTY + "=true only for a fixture that was never committed)");
            }
            Files.write(file, bytes);
            return "OVERWRITTEN";
        }
        Files.write(file, bytes);
        return "new";
    }

    // ---------------------------------------------------------------------------------------------------------
    // checking

    /** The fixture directories on the test class path, as {@code v<n>/<name>}, each with the files it holds. */
    public static TreeMap<String, Set<String>> committed(Class<?> anchor) {
        URL url = anchor.getResource("/" + ROOT);
        assertThat(url).as("test resource directory /" + ROOT).isNotNull();
        TreeMap<String, Set<String>> out = new TreeMap<>();
        try (Stream<Path> versions = Files.list(Paths.get(url.toURI()))) {
            for (Path v : versions.toList()) {
                try (Stream<Path> names = Files.list(v)) {
                    for (Path n : names.toList()) {
                        try (Stream<Path> files = Files.list(n)) {
                            out.put(v.getFileName() + "/" + n.getFileName(), files.map(p -> p.getFileName().toString())
                                    .collect(Collectors.toCollection(TreeSet::new)));
                        }
                    }
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
        return out;
    }

    /**
     * A fixture file, from the same {@code snapshots/} tree as {@link #committed} lists (the first on the test class
     * path: the module's own), never from another module's tree further down the class path.
     */
    public static byte[] read(Class<?> anchor, String directory, String file) throws IOException {
        URL url = anchor.getResource("/" + ROOT);
        assertThat(url).as("test resource directory /" + ROOT).isNotNull();
        Path path;
        try {
            path = Paths.get(url.toURI()).resolve(directory).resolve(file);
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
        if (!Files.isRegularFile(path)) {
            throw new AssertionError("fixture file " + ROOT + "/" + directory + "/" + file + " is missing");
        }
        return Files.readAllBytes(path);
    }

    /**
     * Checks the fixture directory {@code v<version>/<name>} of this fixture with the current code: the committed
     * snapshot names this fixture's snapshot class and {@code version}, and is read whole; the configured serializer's
     * snapshot resolves it as compatible as is; the serializer restored from it equals the configured one and reads
     * the committed value whole into a value equal to the one built now. If the directory is this fixture's current
     * version and the fixture is current, the current code must also write exactly the committed bytes: the
     * snapshot, the value read back and the value built now. Returns a line saying what was checked.
     */
    public String check(Class<?> anchor, int version) throws IOException {
        String dir = "v" + version + "/" + name;
        byte[] snapshotBytes = read(anchor, dir, SNAPSHOT_FILE);
        byte[] valueBytes = read(anchor, dir, VALUE_FILE);
        TypeSerializerSnapshot<T> configured = serializer.snapshotConfiguration();

        DataInputDeserializer header = new DataInputDeserializer(snapshotBytes);
        assertThat(header.readUTF()).as(dir + ": snapshot class").isEqualTo(configured.getClass().getName());
        assertThat(header.readInt()).as(dir + ": snapshot version (the directory's)").isEqualTo(version);

        DataInputDeserializer in = new DataInputDeserializer(snapshotBytes);
        TypeSerializerSnapshot<T> restored = TypeSerializerSnapshot.readVersionedSnapshot(in,
                anchor.getClassLoader());
        assertThat(in.available()).as(dir + ": snapshot bytes left unread").isZero();
        assertThat(restored).as(dir + ": restored snapshot").isInstanceOf(configured.getClass());

        TypeSerializerSchemaCompatibility<T> compat = configured.resolveSchemaCompatibility(restored);
        assertThat(compat.isCompatibleAsIs()).as(dir + ": compatible as is, got " + compat).isTrue();

        TypeSerializer<T> restoredSerializer = restored.restoreSerializer();
        assertThat(restoredSerializer).as(dir + ": restored serializer").isEqualTo(serializer);

        DataInputDeserializer valueIn = new DataInputDeserializer(valueBytes);
        T read = restoredSerializer.deserialize(valueIn);
        assertThat(valueIn.available()).as(dir + ": value bytes left unread").isZero();
        T fresh = value.get();
        assertThat((Object) contents.apply(read)).as(dir + ": value read vs value built now")
                .isEqualTo(contents.apply(fresh));

        boolean pinned = current && version == version();
        if (pinned) {
            assertThat(snapshotBytes()).as(dir + ": snapshot bytes written now vs committed").isEqualTo(snapshotBytes);
            assertThat(serialize(restoredSerializer, read)).as(dir + ": value read and written again vs committed")
                    .isEqualTo(valueBytes);
            assertThat(valueBytes(fresh)).as(dir + ": value built and written now vs committed").isEqualTo(valueBytes);
        }
        return String.format(Locale.ROOT, "%-40s %s v%d, snapshot %5d B, value %6d B, %s", dir,
                simpleName(configured.getClass()), version, snapshotBytes.length, valueBytes.length,
                pinned ? "read, equal, compatible, byte-stable" : "read, equal, compatible (older format)");
    }

    static String simpleName(Class<?> c) {
        return c.getEnclosingClass() == null ? c.getSimpleName()
                : c.getEnclosingClass().getSimpleName() + "." + c.getSimpleName();
    }

    /**
     * Checks every committed fixture directory against {@code all}: each names a known fixture of a version it can
     * have and holds exactly the two files; every current fixture has its directory at its current version, and
     * every concrete {@link TypeSerializerSnapshot} class of the module's main code ({@code mainAnchor}'s class
     * directory) is covered by a current fixture. Returns the lines of what was checked.
     */
    public static List<String> checkAll(Class<?> testAnchor, Class<?> mainAnchor, List<SnapshotFixture<?>> all)
            throws IOException {
        TreeMap<String, SnapshotFixture<?>> byName = new TreeMap<>();
        for (SnapshotFixture<?> f : all) {
            assertThat(byName.put(f.name(), f)).as("fixture name " + f.name() + " used twice").isNull();
        }
        TreeMap<String, Set<String>> dirs = committed(testAnchor);
        List<String> lines = new ArrayList<>();
        List<String> problems = new ArrayList<>();
        for (var e : dirs.entrySet()) {
            String[] parts = e.getKey().split("/");
            SnapshotFixture<?> f = byName.get(parts[1]);
            if (!parts[0].matches("v[1-9][0-9]*") || f == null) {
                problems.add(e.getKey() + ": no fixture of that name in the test (unknown directory)");
                continue;
            }
            int version = Integer.parseInt(parts[0].substring(1));
            if (version > f.version()) {
                problems.add(e.getKey() + ": version " + version + " is newer than the current " + f.version());
                continue;
            }
            if (!e.getValue().equals(Set.of(SNAPSHOT_FILE, VALUE_FILE))) {
                problems.add(e.getKey() + ": holds " + e.getValue() + ", expected [" + SNAPSHOT_FILE + ", "
                        + VALUE_FILE + "]");
                continue;
            }
            try {
                lines.add(f.check(testAnchor, version));
            } catch (AssertionError | Exception ex) {
                problems.add(e.getKey() + ": " + ex);
            }
        }
        for (SnapshotFixture<?> f : all) {
            if (f.current() && !dirs.containsKey(f.directory())) {
                problems.add(f.directory() + ": missing (write it: -D" + WRITE_PROPERTY + "=true)");
            }
            if (!f.current() && dirs.keySet().stream().noneMatch(d -> d.endsWith("/" + f.name()))) {
                problems.add(f.name() + ": a frozen fixture without a committed directory");
            }
        }
        Set<String> covered = all.stream().filter(SnapshotFixture::current)
                .map(f -> f.serializer().snapshotConfiguration().getClass().getName())
                .collect(Collectors.toCollection(TreeSet::new));
        for (Class<?> c : snapshotClasses(mainAnchor)) {
            if (!covered.contains(c.getName())) {
                problems.add(c.getName() + ": a serializer snapshot of the main code without a fixture");
            }
        }
        assertThat(problems).as("fixture problems").isEmpty();
        return lines;
    }

    /** Concrete {@link TypeSerializerSnapshot} classes in the class directory (or jar-less tree) of {@code anchor}. */
    static List<Class<?>> snapshotClasses(Class<?> anchor) throws IOException {
        Path root;
        try {
            root = Paths.get(anchor.getProtectionDomain().getCodeSource().getLocation().toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
        assertThat(root).as("main classes of " + anchor.getName() + " in a directory").isDirectory();
        List<Class<?>> out = new ArrayList<>();
        try (Stream<Path> files = Files.walk(root)) {
            for (Path p : files.filter(p -> p.toString().endsWith(".class")).sorted().toList()) {
                String name = root.relativize(p).toString().replace('/', '.').replace('\\', '.');
                name = name.substring(0, name.length() - ".class".length());
                if (name.endsWith("package-info") || name.endsWith("module-info")) {
                    continue;
                }
                Class<?> c;
                try {
                    c = Class.forName(name, false, anchor.getClassLoader());
                } catch (ClassNotFoundException | LinkageError e) {
                    throw new IllegalStateException("cannot load " + name, e);
                }
                if (TypeSerializerSnapshot.class.isAssignableFrom(c) && !c.isInterface()
                        && !Modifier.isAbstract(c.getModifiers())) {
                    out.add(c);
                }
            }
        }
        return out;
    }
}
