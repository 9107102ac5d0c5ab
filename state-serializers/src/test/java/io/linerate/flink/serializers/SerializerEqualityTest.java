package io.linerate.flink.serializers;

import static org.assertj.core.api.Assertions.assertThat;

import io.linerate.sketches.bloom.StandardBloomFilter;
import io.linerate.sketches.frequency.CountMinSketch;
import io.linerate.sketches.frequency.RowIndexing;
import org.junit.jupiter.api.Test;

/**
 * Equality of serializers and type information, which Flink compares (state descriptors, serializer
 * reconfiguration): equal only for the same structure and the same expected shape.
 */
class SerializerEqualityTest {

    private static CountMinSketch cms(int width, long seed) {
        return CountMinSketch.withShape(width, 4, seed, RowIndexing.FULL_WIDTH, false);
    }

    @Test
    void serializersAreEqualOnlyForTheSameStructureAndExpectedShape() {
        CountMinSketchSerializer narrow = CountMinSketchSerializer.expecting(cms(2048, 1));
        assertThat(narrow).isEqualTo(CountMinSketchSerializer.expecting(cms(2048, 1)))
                .hasSameHashCodeAs(CountMinSketchSerializer.expecting(cms(2048, 1)))
                .isNotEqualTo(CountMinSketchSerializer.expecting(cms(4096, 1)))
                .isNotEqualTo(CountMinSketchSerializer.INSTANCE)
                .isNotEqualTo(StandardBloomFilterSerializer.INSTANCE)
                .isNotEqualTo(null);
        assertThat(CountMinSketchSerializer.INSTANCE).isNotEqualTo(StandardBloomFilterSerializer.INSTANCE)
                .isNotEqualTo(BlockedCountMinSketchSerializer.INSTANCE);
        assertThat(StandardBloomFilterSerializer.expecting(StandardBloomFilter.withBits(4096, 5, 1)))
                .isNotEqualTo(StandardBloomFilterSerializer.expecting(StandardBloomFilter.withBits(4096, 5, 2)));
    }

    @Test
    void serializerTextNamesTheStructureAndItsShape() {
        assertThat(CountMinSketchSerializer.INSTANCE).hasToString("CountMinSketchSerializer[unspecified]");
        assertThat(CountMinSketchSerializer.expecting(cms(2048, 1))).hasToString(
                "CountMinSketchSerializer{width=2048, depth=4, seed=1, indexing=FULL_WIDTH, conservative=false}");
    }

    @Test
    void typeInformationIsEqualOnlyForTheSameStructure() {
        assertThat(new StandardBloomFilterTypeInfo()).isEqualTo(new StandardBloomFilterTypeInfo())
                .hasSameHashCodeAs(new StandardBloomFilterTypeInfo())
                .isNotEqualTo(new CountingBloomFilterTypeInfo())
                .isNotEqualTo(new PartitionedBloomFilterTypeInfo())
                .isNotEqualTo(null);
        assertThat(new StandardBloomFilterTypeInfo().hashCode())
                .isNotEqualTo(new CountingBloomFilterTypeInfo().hashCode());
        assertThat(new StandardBloomFilterTypeInfo().canEqual(new CountingBloomFilterTypeInfo())).isFalse();
        assertThat(new StandardBloomFilterTypeInfo().getTypeClass()).isEqualTo(StandardBloomFilter.class);
    }
}
