package io.linerate.flink.serializers;

import io.linerate.sketches.frequency.CountMinSketch;

class CountMinSketchSerializerTest extends ImageSerializerTestBase<CountMinSketch> {

    @Override
    protected CountMinSketch sample(int i) {
        CountMinSketch f = CountMinSketch.withShape(512, 4, 42, io.linerate.sketches.frequency.RowIndexing.FULL_WIDTH, false);
        for (int j = 0; j < 100 * i; j++) {
            f.update(j * 31L + i, 1 + j % 3);
        }
        return f;
    }

    @Override
    protected ImageSerializer<CountMinSketch> serializerExpecting(CountMinSketch prototype) {
        return CountMinSketchSerializer.expecting(prototype);
    }

    @Override
    protected Class<CountMinSketch> getTypeClass() {
        return CountMinSketch.class;
    }
}
