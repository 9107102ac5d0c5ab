package io.linerate.flink.serializers;

import io.linerate.sketches.bloom.BlockedBloomFilter;

class BlockedBloomFilterSerializerTest extends ImageSerializerTestBase<BlockedBloomFilter> {

    @Override
    protected BlockedBloomFilter sample(int i) {
        BlockedBloomFilter f = BlockedBloomFilter.withBits(8192, 6, 42, 512);
        for (int j = 0; j < 100 * i; j++) {
            f.put(j * 31L + i);
        }
        return f;
    }

    @Override
    protected ImageSerializer<BlockedBloomFilter> serializerExpecting(BlockedBloomFilter prototype) {
        return BlockedBloomFilterSerializer.expecting(prototype);
    }

    @Override
    protected Class<BlockedBloomFilter> getTypeClass() {
        return BlockedBloomFilter.class;
    }
}
