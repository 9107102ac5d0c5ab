package io.linerate.flink.serializers.docs;

import static org.assertj.core.api.Assertions.assertThat;

import io.linerate.flink.serializers.CountMinSketchTypeInfo;
import io.linerate.flink.serializers.LinerateTypes;
import io.linerate.flink.serializers.KryoSerializers;
import io.linerate.sketches.frequency.CountMinSketch;
import io.linerate.sketches.hash.FiveTuple;
import org.apache.flink.api.common.serialization.SerializerConfigImpl;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.junit.jupiter.api.Test;

/** README.md "Flink state" and docs/STATE-FORMAT.md's direct route and Kryo snippet. */
class DocReadmeStateSnippetTest {

    @Test
    void readmeFlinkState() {
        // every structure (and FiveTuple) gets its own TypeInformation and TypeSerializer (never Kryo, never POJO analysis)
        LinerateTypes.register();   // JVM-global and idempotent: in main() before building the job, and in tests
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        // state declared with the concrete class and its type information works in every JVM without registration
        ValueStateDescriptor<CountMinSketch> cms = new ValueStateDescriptor<>("cms", new CountMinSketchTypeInfo());
        // structures kept inside your own Kryo-serialized types
        LinerateTypes.registerKryo(env.getConfig().getSerializerConfig());

        LinerateTypes.register();   // idempotent
        assertThat(TypeInformation.of(CountMinSketch.class)).isInstanceOf(CountMinSketchTypeInfo.class);
        assertThat(TypeInformation.of(FiveTuple.class).getClass().getSimpleName()).isEqualTo("FiveTupleTypeInfo");
        assertThat(cms.getName()).isEqualTo("cms");
        assertThat(((SerializerConfigImpl) env.getConfig().getSerializerConfig()).getDefaultKryoSerializerClasses())
                .containsKey(CountMinSketch.class);
    }
}
