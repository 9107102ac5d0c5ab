package io.linerate.flink.serializers;

import static org.assertj.core.api.Assertions.assertThat;

import io.linerate.sketches.bloom.StandardBloomFilter;
import io.linerate.sketches.frequency.CountMinSketch;
import java.util.List;
import java.util.Map;
import org.apache.flink.api.common.serialization.SerializerConfigImpl;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.java.typeutils.GenericTypeInfo;
import org.apache.flink.api.java.typeutils.PojoTypeInfo;
import org.apache.flink.api.java.typeutils.TypeExtractor;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.PipelineOptions;
import org.junit.jupiter.api.Test;

/** The direct route; {@link LinerateTypesConfigurationTest} (own JVM: Flink's registry is global) the other. */
class LinerateTypesTest {

    @Test
    void everyStructureGetsItsOwnTypeInformationAfterRegistration() {
        LinerateTypes.register();
        LinerateTypes.register(); // idempotent
        for (Class<?> type : LinerateTypes.factoryClasses().keySet()) {
            TypeInformation<?> info = TypeInformation.of(type);
            assertThat(info).as(type.getSimpleName()).isInstanceOf(ImageTypeInfo.class)
                    .isNotInstanceOf(GenericTypeInfo.class).isNotInstanceOf(PojoTypeInfo.class);
            assertThat(info.getTypeClass()).isEqualTo(type);
            assertThat(info.createSerializer(new SerializerConfigImpl())).isInstanceOf(ImageSerializer.class);
            assertThat(TypeExtractor.createTypeInfo(type)).isEqualTo(info);
        }
        assertThat(TypeInformation.of(CountMinSketch.class)).isEqualTo(new CountMinSketchTypeInfo());
        assertThat(TypeInformation.of(CountMinSketch.class).createSerializer(new SerializerConfigImpl()))
                .isSameAs(CountMinSketchSerializer.INSTANCE);
    }

    @Test
    void registerOnEmptyConfiguration() {
        Configuration conf = LinerateTypes.register(new Configuration());
        assertThat(conf.get(PipelineOptions.SERIALIZATION_CONFIG)).hasSize(LinerateTypes.factoryClasses().size());
    }
}
