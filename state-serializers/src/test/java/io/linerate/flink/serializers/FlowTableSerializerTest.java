package io.linerate.flink.serializers;

import static org.assertj.core.api.Assertions.assertThat;

import io.linerate.sketches.flowtable.FlowTable;
import org.junit.jupiter.api.Test;

class FlowTableSerializerTest extends ImageSerializerTestBase<FlowTable> {

    @Override
    protected FlowTable sample(int i) {
        FlowTable f = FlowTable.builder().capacity(1000).seed(42).build();
        for (int j = 0; j < 50 * i; j++) {
            f.update(io.linerate.sketches.hash.FiveTuple.ipv4(0x0A000000 + j, 0x0A000001, 1000 + j % 7, 80, 6), 0, 100 + j, 1000L + j);
        }
        return f;
    }

    @Override
    protected ImageSerializer<FlowTable> serializerExpecting(FlowTable prototype) {
        return FlowTableSerializer.expecting(prototype);
    }

    @Override
    protected Class<FlowTable> getTypeClass() {
        return FlowTable.class;
    }

    /**
     * The operators' route (a serializer from the plan, no full-capacity table built): it expects exactly the shape
     * of the table the plan builds, so a restore into a plan of another capacity is incompatible.
     */
    @Test
    void aSerializerExpectingAPlanExpectsTheShapeOfTheTableItBuilds() {
        FlowTable.Builder builder = FlowTable.builder().capacity(1000).seed(42);
        FlowTableSerializer fromPlan = FlowTableSerializer.expecting(builder.plan());
        assertThat(fromPlan).isEqualTo(FlowTableSerializer.expecting(builder.build()))
                .isNotEqualTo(FlowTableSerializer.INSTANCE);
        FlowTableSerializer larger = FlowTableSerializer.expecting(FlowTable.builder().capacity(2000).seed(42).plan());
        assertThat(larger.snapshotConfiguration().resolveSchemaCompatibility(fromPlan.snapshotConfiguration())
                .isIncompatible()).isTrue();
    }
}
