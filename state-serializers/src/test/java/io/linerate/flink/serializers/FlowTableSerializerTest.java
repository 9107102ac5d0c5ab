package io.linerate.flink.serializers;

import io.linerate.sketches.flowtable.FlowTable;

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
}
