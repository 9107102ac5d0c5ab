package io.linerate.flink.serializers;

import static org.assertj.core.api.Assertions.assertThat;

import io.linerate.sketches.bloom.BalancedBloomFilter;
import io.linerate.sketches.bloom.BlockedBloomFilter;
import io.linerate.sketches.bloom.CountingBloomFilter;
import io.linerate.sketches.bloom.PartitionedBloomFilter;
import io.linerate.sketches.bloom.SplitBlockBloomFilter;
import io.linerate.sketches.bloom.StandardBloomFilter;
import io.linerate.sketches.flowtable.FlowTable;
import io.linerate.sketches.frequency.BlockedCountMinSketch;
import io.linerate.sketches.frequency.CountMinHeap;
import io.linerate.sketches.frequency.CountMinSketch;
import io.linerate.sketches.frequency.RowIndexing;
import io.linerate.sketches.frequency.SpaceSaving;
import io.linerate.sketches.hash.FiveTuple;
import java.util.Map;
import org.apache.flink.api.common.serialization.SerializerConfigImpl;
import org.apache.flink.api.common.typeinfo.TypeInfoFactory;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.junit.jupiter.api.Test;

/**
 * The type-information factories that {@link LinerateTypes} registers, called directly (without Flink's JVM-global
 * registry, so this test can share a JVM with any other): each gives its structure's type information, whose
 * serializer is that structure's own, and which Flink treats as one atomic, non-key field.
 */
class TypeInfoFactoriesTest {

    /** The serializer of unspecified shape each structure's type information must create. */
    private static final Map<Class<?>, TypeSerializer<?>> SERIALIZERS = Map.ofEntries(
            Map.entry(StandardBloomFilter.class, StandardBloomFilterSerializer.INSTANCE),
            Map.entry(PartitionedBloomFilter.class, PartitionedBloomFilterSerializer.INSTANCE),
            Map.entry(BlockedBloomFilter.class, BlockedBloomFilterSerializer.INSTANCE),
            Map.entry(SplitBlockBloomFilter.class, SplitBlockBloomFilterSerializer.INSTANCE),
            Map.entry(BalancedBloomFilter.class, BalancedBloomFilterSerializer.INSTANCE),
            Map.entry(CountingBloomFilter.class, CountingBloomFilterSerializer.INSTANCE),
            Map.entry(CountMinSketch.class, CountMinSketchSerializer.INSTANCE),
            Map.entry(BlockedCountMinSketch.class, BlockedCountMinSketchSerializer.INSTANCE),
            Map.entry(SpaceSaving.class, SpaceSavingSerializer.INSTANCE),
            Map.entry(CountMinHeap.class, CountMinHeapSerializer.INSTANCE),
            Map.entry(FlowTable.class, FlowTableSerializer.INSTANCE),
            Map.entry(FiveTuple.class, FiveTupleSerializer.INSTANCE));

    private static TypeInformation<?> fromFactory(Class<?> type) throws ReflectiveOperationException {
        TypeInfoFactory<?> factory = LinerateTypes.factoryClasses().get(type).getDeclaredConstructor().newInstance();
        return factory.createTypeInfo(type, Map.of());
    }

    @Test
    void everyRegisteredFactoryGivesTypeInformationWithItsStructuresOwnSerializer() throws Exception {
        assertThat(LinerateTypes.factoryClasses().keySet()).containsExactlyInAnyOrderElementsOf(SERIALIZERS.keySet());
        for (Map.Entry<Class<?>, TypeSerializer<?>> e : SERIALIZERS.entrySet()) {
            Class<?> type = e.getKey();
            TypeInformation<?> info = fromFactory(type);
            assertThat(info).as(type.getSimpleName()).isNotNull().isEqualTo(fromFactory(type));
            assertThat(info.getTypeClass()).as(type.getSimpleName()).isEqualTo(type);
            assertThat(info.createSerializer(new SerializerConfigImpl())).as(type.getSimpleName())
                    .isSameAs(e.getValue());
            assertThat(info.isBasicType()).as(type.getSimpleName()).isFalse();
            assertThat(info.isTupleType()).as(type.getSimpleName()).isFalse();
            assertThat(info.getArity()).as(type.getSimpleName()).isEqualTo(1);
            assertThat(info.getTotalFields()).as(type.getSimpleName()).isEqualTo(1);
            assertThat(info).as(type.getSimpleName()).hasToString(info.getClass().getSimpleName());
            // a structure is state, not a key: keyBy on one must be refused; the 5-tuple is the key type
            assertThat(info.isKeyType()).as(type.getSimpleName()).isEqualTo(type == FiveTuple.class);
        }
    }

    @Test
    void fiveTupleTypeInformationIsEqualOnlyToItself() {
        FiveTupleTypeInfo info = FiveTupleTypeInfo.INSTANCE;
        assertThat(info).hasToString("FiveTupleTypeInfo").isEqualTo(new FiveTupleTypeInfo())
                .hasSameHashCodeAs(new FiveTupleTypeInfo())
                .isNotEqualTo(new CountMinSketchTypeInfo()).isNotEqualTo(null);
        assertThat(info.canEqual(new FiveTupleTypeInfo())).isTrue();
        assertThat(info.canEqual(new CountMinSketchTypeInfo())).isFalse();
    }

    /** A shaped Count-Min type information (an operator's state) gives a serializer expecting that shape. */
    @Test
    void shapedCountMinTypeInformationCarriesItsShape() {
        Shape narrow = Shapes.countMin(2048, 4, 7, RowIndexing.FULL_WIDTH, false);
        Shape wide = Shapes.countMin(4096, 4, 7, RowIndexing.FULL_WIDTH, false);
        CountMinSketchTypeInfo info = new CountMinSketchTypeInfo(narrow);

        assertThat(info.createSerializer(new SerializerConfigImpl())).isEqualTo(new CountMinSketchSerializer(narrow))
                .isNotEqualTo(CountMinSketchSerializer.INSTANCE);
        assertThat(info).isEqualTo(new CountMinSketchTypeInfo(narrow))
                .hasSameHashCodeAs(new CountMinSketchTypeInfo(narrow))
                .isNotEqualTo(new CountMinSketchTypeInfo(wide))
                .isNotEqualTo(new CountMinSketchTypeInfo())
                .isNotEqualTo(new BlockedCountMinSketchTypeInfo())
                .isNotEqualTo(null);
        assertThat(info.hashCode()).isNotEqualTo(new CountMinSketchTypeInfo().hashCode());
        assertThat(info.canEqual(new CountMinSketchTypeInfo(wide))).isTrue();
        assertThat(info.canEqual(null)).isFalse();
        assertThat(info).hasToString("CountMinSketchTypeInfo" + narrow);
        assertThat(new CountMinSketchTypeInfo()).hasToString("CountMinSketchTypeInfo")
                .isEqualTo(new CountMinSketchTypeInfo(null));
    }
}
