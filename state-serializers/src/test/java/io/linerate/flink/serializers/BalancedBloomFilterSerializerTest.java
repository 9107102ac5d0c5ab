package io.linerate.flink.serializers;

import io.linerate.sketches.bloom.BalancedBloomFilter;

class BalancedBloomFilterSerializerTest extends ImageSerializerTestBase<BalancedBloomFilter> {

    @Override
    protected BalancedBloomFilter sample(int i) {
        BalancedBloomFilter f = BalancedBloomFilter.create(2000, 0.01, 42);
        for (int j = 0; j < 100 * i; j++) {
            f.put(j * 31L + i);
        }
        return f;
    }

    @Override
    protected ImageSerializer<BalancedBloomFilter> serializerExpecting(BalancedBloomFilter prototype) {
        return BalancedBloomFilterSerializer.expecting(prototype);
    }

    @Override
    protected Class<BalancedBloomFilter> getTypeClass() {
        return BalancedBloomFilter.class;
    }
}
