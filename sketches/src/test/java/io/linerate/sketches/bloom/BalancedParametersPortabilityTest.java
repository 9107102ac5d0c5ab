package io.linerate.sketches.bloom;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The derived shape of a balanced filter (coin probability, threshold, subtable sizes, overflow capacity, k) is
 * recorded in the state serializer's snapshot and compared on restore, as text, to the shape the configuration
 * derives: it must come out bit for bit the same on every JVM. {@code Math.exp/log/pow} may differ by an ulp between
 * JVMs (and on one HotSpot between its libm intrinsics and its portable fallback); {@code StrictMath} may not.
 * A second JVM with the intrinsics off stands in for "another JVM".
 */
class BalancedParametersPortabilityTest {

    /** Shapes of a grid of configurations, one line each. */
    static List<String> shapes() {
        List<String> out = new ArrayList<>();
        for (long blocks : new long[] {64, 1000, 4096, 100_000}) {
            for (int blockBits : new int[] {256, 512}) {
                for (double beta : new double[] {8, 10, 12, 16, 40}) {
                    for (double a : new double[] {1.2, 1.5}) {
                        BalancedParameters p = BalancedParameters.of(blocks, blockBits, beta, a, 3);
                        out.add(blocks + " " + blockBits + " " + beta + " " + a + ": k=" + p.hashCount() + " h="
                                + p.threshold() + " p=" + Double.doubleToRawLongBits(p.coinProbability())
                                + " subtables=" + Arrays.toString(p.subtableBlocks()) + " overflow="
                                + p.overflowCapacity() + " gamma=" + Double.doubleToRawLongBits(p.overflowFraction()));
                    }
                }
            }
        }
        return out;
    }

    /** Run in the second JVM: prints {@link #shapes()}. */
    public static void main(String[] args) {
        shapes().forEach(System.out::println);
    }

    @Test
    void derivedShapesAreTheSameWithoutTheLibmIntrinsics() throws IOException, InterruptedException {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        // stdout holds only the shapes; the JVM's own notices (an unknown option, "Picked up JAVA_TOOL_OPTIONS")
        // go to stderr, kept apart so an environment that sets such options does not add a line to the shapes
        Path stderr = Files.createTempFile("linerate-portability-", ".txt");
        String output;
        String notices;
        try {
            Process child = new ProcessBuilder(java, "-XX:+UnlockDiagnosticVMOptions", "-XX:-UseLibmIntrinsic",
                    "-cp", System.getProperty("java.class.path"), BalancedParametersPortabilityTest.class.getName())
                    .redirectError(stderr.toFile()).start();
            output = new String(child.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertThat(child.waitFor(60, TimeUnit.SECONDS)).isTrue();
            notices = Files.readString(stderr);
            assumeThat(notices).as("a HotSpot VM with -XX:UseLibmIntrinsic").doesNotContain("Unrecognized VM option");
            assertThat(child.exitValue()).as(notices + output).isZero();
        } finally {
            Files.deleteIfExists(stderr);
        }
        List<String> theirs = output.lines().toList();
        List<String> mine = shapes();
        assertThat(theirs).hasSameSizeAs(mine);
        List<String> differing = new ArrayList<>();
        for (int i = 0; i < mine.size(); i++) {
            if (!mine.get(i).equals(theirs.get(i))) {
                differing.add(mine.get(i) + "  vs  " + theirs.get(i));
            }
        }
        assertThat(differing).as("shapes derived differently without the libm intrinsics").isEmpty();
    }
}
