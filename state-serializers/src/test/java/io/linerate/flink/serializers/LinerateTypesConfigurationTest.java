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

/**
 * The {@code pipeline.serialization-config} route. Runs in a JVM of its own (the pom's {@code config-route} execution):
 * Flink's factory registry is JVM-global and refuses a second registration of a type.
 */
class LinerateTypesConfigurationTest {

    @Test
    void serializationConfigEntriesAreReadByFlink() {
        Configuration conf = new Configuration();
        conf.set(PipelineOptions.SERIALIZATION_CONFIG, List.of("java.lang.String: {type: pojo}"));
        LinerateTypes.register(conf);
        LinerateTypes.register(conf); // idempotent
        assertThat(conf.get(PipelineOptions.SERIALIZATION_CONFIG))
                .hasSize(1 + LinerateTypes.factoryClasses().size())
                .contains("io.linerate.sketches.frequency.CountMinSketch: {type: typeinfo, class: "
                        + "io.linerate.flink.serializers.CountMinSketchTypeInfo$Factory}");

        SerializerConfigImpl config = new SerializerConfigImpl();
        config.configure(conf, getClass().getClassLoader());
        Map<Class<?>, Class<? extends org.apache.flink.api.common.typeinfo.TypeInfoFactory<?>>> factories =
                config.getRegisteredTypeInfoFactories();
        assertThat(factories).containsAllEntriesOf(LinerateTypes.factoryClasses());
        assertThat(TypeInformation.of(StandardBloomFilter.class)).isInstanceOf(StandardBloomFilterTypeInfo.class);
    }

}
