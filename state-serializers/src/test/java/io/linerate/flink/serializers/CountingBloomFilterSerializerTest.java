package io.linerate.flink.serializers;

import io.linerate.sketches.bloom.CountingBloomFilter;

class CountingBloomFilterSerializerTest extends ImageSerializerTestBase<CountingBloomFilter> {

    @Override
    protected CountingBloomFilter sample(int i) {
        CountingBloomFilter f = CountingBloomFilter.withCounters(4096, 4, 4, 42);
        for (int j = 0; j < 100 * i; j++) {
            f.put(j * 31L + i);
        }
        return f;
    }

    @Override
    protected ImageSerializer<CountingBloomFilter> serializerExpecting(CountingBloomFilter prototype) {
        return CountingBloomFilterSerializer.expecting(prototype);
    }

    @Override
    protected Class<CountingBloomFilter> getTypeClass() {
        return CountingBloomFilter.class;
    }
}
