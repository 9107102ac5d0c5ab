package io.linerate.flink.serializers;

import io.linerate.sketches.bloom.SplitBlockBloomFilter;

class SplitBlockBloomFilterSerializerTest extends ImageSerializerTestBase<SplitBlockBloomFilter> {

    @Override
    protected SplitBlockBloomFilter sample(int i) {
        SplitBlockBloomFilter f = SplitBlockBloomFilter.withBits(8192, 42);
        for (int j = 0; j < 100 * i; j++) {
            f.put(j * 31L + i);
        }
        return f;
    }

    @Override
    protected ImageSerializer<SplitBlockBloomFilter> serializerExpecting(SplitBlockBloomFilter prototype) {
        return SplitBlockBloomFilterSerializer.expecting(prototype);
    }

    @Override
    protected Class<SplitBlockBloomFilter> getTypeClass() {
        return SplitBlockBloomFilter.class;
    }
}
