package io.linerate.flink.serializers;

import io.linerate.sketches.frequency.CountMinHeap;

class CountMinHeapSerializerTest extends ImageSerializerTestBase<CountMinHeap> {

    @Override
    protected CountMinHeap sample(int i) {
        CountMinHeap f = CountMinHeap.create(io.linerate.sketches.frequency.KeyKind.longs(), 32, 256, 4, true, 42);
        for (int j = 0; j < 100 * i; j++) {
            f.update(j * 31L + i, 1 + j % 3);
        }
        return f;
    }

    @Override
    protected ImageSerializer<CountMinHeap> serializerExpecting(CountMinHeap prototype) {
        return CountMinHeapSerializer.expecting(prototype);
    }

    @Override
    protected Class<CountMinHeap> getTypeClass() {
        return CountMinHeap.class;
    }
}
