package io.linerate.flink.cluster;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.util.FileUtils;

/**
 * The Flink cluster of the job tests in {@code state-serializers}, {@code operators} and {@code jobs}: Flink's
 * {@link MiniClusterExtension} with one TaskManager of two task slots, its checkpoints in a folder of its own.
 *
 * <p>Why the folder: left to the extension, the default checkpoint folder is set as a URI
 * ({@code File.toURI().toString()} in Flink's {@code MiniClusterResource}), whose {@code %20} Flink then reads as
 * three characters. Under a checkout path with a space, the tests wrote their checkpoints to a sibling folder named
 * {@code ...%20...} outside the checkout and left it there. Here the folder is set in Flink's path form, and its
 * name has a space of its own, so every build runs that case.
 */
public final class TestCluster {

    private TestCluster() {
    }

    /** One cluster per test class: {@code @RegisterExtension static final MiniClusterExtension FLINK = twoSlots();}. */
    public static MiniClusterExtension twoSlots() {
        return twoSlots(new Configuration());
    }

    /** The cluster with {@code extra} settings (e.g. no restarts), checkpoints in a new folder. */
    public static MiniClusterExtension twoSlots(Configuration extra) {
        return twoSlots(extra, newCheckpointFolder());
    }

    /** The cluster with {@code extra} settings, checkpoints in {@code checkpoints}. */
    public static MiniClusterExtension twoSlots(Configuration extra, Path checkpoints) {
        Configuration conf = new Configuration(extra);
        conf.set(CheckpointingOptions.CHECKPOINTS_DIRECTORY, flinkPath(checkpoints));
        return new MiniClusterExtension(new MiniClusterResourceConfiguration.Builder()
                .setConfiguration(conf)
                .setNumberTaskManagers(1)
                .setNumberSlotsPerTaskManager(2)
                .build());
    }

    /**
     * A new folder {@code "linerate checkpoints <n>"} in {@code java.io.tmpdir} (the module's {@code target} in the
     * build), deleted when the JVM exits.
     */
    public static Path newCheckpointFolder() {
        try {
            Path folder = Files.createTempDirectory("linerate checkpoints ");
            Runtime.getRuntime().addShutdownHook(new Thread(() -> FileUtils.deleteDirectoryQuietly(folder.toFile())));
            return folder;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create a checkpoint folder in java.io.tmpdir", e);
        }
    }

    /**
     * A local folder as Flink reads a path option: {@code file:/a b/c}, not the URI {@code file:///a%20b/c}, whose
     * {@code %20} Flink would take as three characters of a folder's name.
     */
    public static String flinkPath(Path folder) {
        return org.apache.flink.core.fs.Path.fromLocalFile(folder.toFile()).toString();
    }
}
