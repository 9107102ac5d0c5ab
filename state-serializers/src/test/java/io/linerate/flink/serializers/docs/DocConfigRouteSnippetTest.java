package io.linerate.flink.serializers.docs;

import static org.assertj.core.api.Assertions.assertThat;

import io.linerate.flink.serializers.CountMinSketchTypeInfo;
import io.linerate.flink.serializers.LinerateTypes;
import io.linerate.sketches.frequency.CountMinSketch;
import java.util.List;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.junit.jupiter.api.Test;

/** docs/STATE-FORMAT.md "Registering with Flink": the configuration route, alone in its JVM. */
class DocConfigRouteSnippetTest {

    @Test
    void configurationRoute() throws Exception {
        // in a job: pipeline.serialization-config, applied wherever Flink builds the serializer config
        Configuration conf = LinerateTypes.register(new Configuration());
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);

        assertThat(TypeInformation.of(CountMinSketch.class)).isInstanceOf(CountMinSketchTypeInfo.class);
        env.setParallelism(1);
        DataStream<CountMinSketch> s = env.fromData(List.of(1L, 2L), TypeInformation.of(Long.class))
                .map(i -> { CountMinSketch c = CountMinSketch.withMemory(1024, 2, 1); c.update(i, 1); return c; });
        assertThat(s.getType()).isInstanceOf(CountMinSketchTypeInfo.class);
        List<CountMinSketch> out = s.executeAndCollect(10);
        assertThat(out).hasSize(2);
    }
}
