package io.linerate.flink.serializers;

import io.linerate.sketches.bloom.StandardBloomFilter;

class StandardBloomFilterSerializerTest extends ImageSerializerTestBase<StandardBloomFilter> {

    @Override
    protected StandardBloomFilter sample(int i) {
        StandardBloomFilter f = StandardBloomFilter.withBits(4096, 5, 42);
        for (int j = 0; j < 100 * i; j++) {
            f.put(j * 31L + i);
        }
        return f;
    }

    @Override
    protected ImageSerializer<StandardBloomFilter> serializerExpecting(StandardBloomFilter prototype) {
        return StandardBloomFilterSerializer.expecting(prototype);
    }

    @Override
    protected Class<StandardBloomFilter> getTypeClass() {
        return StandardBloomFilter.class;
    }
}
