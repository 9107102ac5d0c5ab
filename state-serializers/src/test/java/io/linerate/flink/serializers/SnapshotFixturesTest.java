package io.linerate.flink.serializers;

import static org.assertj.core.api.Assertions.assertThat;

import io.linerate.sketches.flowtable.FlowTable;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Upgrade safety of the Flink serializers, as Flink's {@code TypeSerializerUpgradeTestBase} checks it: for every
 * committed directory {@code src/test/resources/snapshots/v<snapshot version>/<name>/} (written by
 * {@link WriteSnapshotFixtures}), the current code reads the serializer snapshot, finds it compatible as is with
 * the serializer configured as the fixture's writer configured it, restores that serializer from it, reads the
 * committed value with it into a structure whose image equals the one built now from the same seeds, and, at the
 * current snapshot version, writes exactly the committed snapshot and value bytes again (a changed format fails
 * here unless its version is bumped and a new fixture is added). Every current fixture must be committed, every
 * committed directory must be known, and every serializer snapshot class of this module's main code must have a
 * fixture. See {@link SnapshotFixture} and docs/STATE-FORMAT.md, "Serializer snapshot fixtures".
 */
class SnapshotFixturesTest {

    @Test
    void everyCommittedFixtureRestoresAndTheCurrentOnesAreByteStable() throws Exception {
        List<String> lines = SnapshotFixture.checkAll(SnapshotFixturesTest.class, ImageSerializer.class,
                SerializerFixtures.all());
        lines.forEach(l -> System.out.println("[SnapshotFixturesTest] " + l));
        assertThat(lines).as("fixtures checked").hasSizeGreaterThanOrEqualTo(SerializerFixtures.all().size());
    }

    /** The flow table fixture holds live flows of both IP versions (what an operator's table holds). */
    @Test
    void theFlowTableFixtureHoldsLiveIpv4AndIpv6Flows() {
        FlowTable t = (FlowTable) SerializerFixtures.all().stream().filter(f -> f.name().equals("flow-table"))
                .findFirst().orElseThrow().value().get();
        List<Boolean> ipv6 = new ArrayList<>(); // forEach passes one reused record
        t.forEach(r -> ipv6.add(r.isIpv6()));
        assertThat(ipv6).hasSizeGreaterThan(20).contains(true, false);
    }
}
