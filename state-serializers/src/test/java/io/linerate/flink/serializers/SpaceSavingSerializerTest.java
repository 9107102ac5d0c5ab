package io.linerate.flink.serializers;

import io.linerate.sketches.frequency.SpaceSaving;

class SpaceSavingSerializerTest extends ImageSerializerTestBase<SpaceSaving> {

    @Override
    protected SpaceSaving sample(int i) {
        SpaceSaving f = SpaceSaving.withCapacity(io.linerate.sketches.frequency.KeyKind.longs(), 64, 42);
        for (int j = 0; j < 100 * i; j++) {
            f.update(j * 31L + i, 1 + j % 3);
        }
        return f;
    }

    @Override
    protected ImageSerializer<SpaceSaving> serializerExpecting(SpaceSaving prototype) {
        return SpaceSavingSerializer.expecting(prototype);
    }

    @Override
    protected Class<SpaceSaving> getTypeClass() {
        return SpaceSaving.class;
    }
}
