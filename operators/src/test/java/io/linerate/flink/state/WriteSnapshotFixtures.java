package io.linerate.flink.state;

import io.linerate.flink.serializers.SnapshotFixture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * Writes the serializer-snapshot fixtures of the operators' own state serializers ({@link SnapshotFixturesTest})
 * into {@code src/test/resources/snapshots/v<snapshot version>/<name>/}. On demand only, never in the default build:
 *
 * <pre>
 * mvn -B -o test -pl sketches,state-serializers,operators -DskipFuzz -Dtest=WriteSnapshotFixtures \
 *     -Dsurefire.failIfNoSpecifiedTests=false -Dlinerate.writeSnapshotFixtures=true
 * </pre>
 *
 * <p>A fixture file that exists with the same bytes is left as it is; one with other bytes is refused unless
 * {@code -Dlinerate.overwriteSnapshotFixtures=true}, which is only for a fixture never committed. See
 * docs/STATE-FORMAT.md, "Serializer snapshot fixtures".
 */
@EnabledIfSystemProperty(named = SnapshotFixture.WRITE_PROPERTY, matches = "true")
class WriteSnapshotFixtures {

    @Test
    void write() throws Exception {
        SnapshotFixture.writeAndPrint(SnapshotFixturesTest.all());
    }
}
