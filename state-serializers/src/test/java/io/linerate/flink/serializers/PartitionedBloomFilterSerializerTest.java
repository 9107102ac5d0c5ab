package io.linerate.flink.serializers;

import io.linerate.sketches.bloom.PartitionedBloomFilter;

class PartitionedBloomFilterSerializerTest extends ImageSerializerTestBase<PartitionedBloomFilter> {

    @Override
    protected PartitionedBloomFilter sample(int i) {
        PartitionedBloomFilter f = PartitionedBloomFilter.withBits(4096, 5, 42);
        for (int j = 0; j < 100 * i; j++) {
            f.put(j * 31L + i);
        }
        return f;
    }

    @Override
    protected ImageSerializer<PartitionedBloomFilter> serializerExpecting(PartitionedBloomFilter prototype) {
        return PartitionedBloomFilterSerializer.expecting(prototype);
    }

    @Override
    protected Class<PartitionedBloomFilter> getTypeClass() {
        return PartitionedBloomFilter.class;
    }
}
