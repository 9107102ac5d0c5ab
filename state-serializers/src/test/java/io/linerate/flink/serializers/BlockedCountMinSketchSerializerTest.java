package io.linerate.flink.serializers;

import io.linerate.sketches.frequency.BlockedCountMinSketch;

class BlockedCountMinSketchSerializerTest extends ImageSerializerTestBase<BlockedCountMinSketch> {

    @Override
    protected BlockedCountMinSketch sample(int i) {
        BlockedCountMinSketch f = BlockedCountMinSketch.withBlocks(128, 42);
        for (int j = 0; j < 100 * i; j++) {
            f.update(j * 31L + i, 1 + j % 3);
        }
        return f;
    }

    @Override
    protected ImageSerializer<BlockedCountMinSketch> serializerExpecting(BlockedCountMinSketch prototype) {
        return BlockedCountMinSketchSerializer.expecting(prototype);
    }

    @Override
    protected Class<BlockedCountMinSketch> getTypeClass() {
        return BlockedCountMinSketch.class;
    }
}
