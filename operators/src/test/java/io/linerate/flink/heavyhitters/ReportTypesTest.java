package io.linerate.flink.heavyhitters;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.apache.flink.api.common.serialization.SerializerConfigImpl;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.common.typeutils.base.ListSerializer;
import org.apache.flink.api.java.typeutils.runtime.PojoSerializer;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.junit.jupiter.api.Test;

/** Reports and alerts go through Flink's POJO serializer with the key's own serializer, never Kryo. */
class ReportTypesTest {

    private static <V> V roundTrip(TypeSerializer<V> serializer, V value) throws Exception {
        DataOutputSerializer out = new DataOutputSerializer(128);
        serializer.serialize(value, out);
        return serializer.deserialize(new DataInputDeserializer(out.getCopyOfBuffer()));
    }

    @Test
    void reportRoundTripsThroughPojoSerializers() throws Exception {
        TypeSerializer<HeavyHitterReport<Long>> serializer = HeavyHitterReport.typeInfo(Types.LONG)
                .createSerializer(new SerializerConfigImpl());
        assertThat(serializer).isInstanceOf(PojoSerializer.class);
        assertThat(serializer.toString()).doesNotContain("Kryo");
        assertThat(HeavyHitterReport.itemTypeInfo().createSerializer(new SerializerConfigImpl()))
                .isInstanceOf(PojoSerializer.class);
        assertThat(new org.apache.flink.api.java.typeutils.ListTypeInfo<>(HeavyHitterReport.itemTypeInfo())
                .createSerializer(new SerializerConfigImpl())).isInstanceOf(ListSerializer.class);

        HeavyHitterReport<Long> report = new HeavyHitterReport<>();
        report.key = 42L;
        report.windowStart = 0;
        report.windowEnd = 60_000;
        report.totalWeight = 1234;
        report.phi = 0.01;
        report.unmonitoredBound = 3;
        report.complete = true;
        report.items = List.of(new ReportedItem("10.0.0.1 10.0.0.2 1234 80 6", 500, 497, 500, true),
                new ReportedItem("ab01", 12, 9, 12, true));
        assertThat(roundTrip(serializer, report)).isEqualTo(report);
        assertThat(report.toString()).isEqualTo("HH{42 [0,60000) N=1234 bound=3 complete: "
                + "[10.0.0.1 10.0.0.2 1234 80 6=500[497..500]*, ab01=12[9..12]*]}");
    }

    @Test
    void alertRoundTripsThroughPojoSerializers() throws Exception {
        TypeSerializer<HeavyHitterAlert<String>> serializer = HeavyHitterAlert.typeInfo(Types.STRING)
                .createSerializer(new SerializerConfigImpl());
        assertThat(serializer).isInstanceOf(PojoSerializer.class);
        HeavyHitterAlert<String> alert = new HeavyHitterAlert<>();
        alert.key = "link";
        alert.windowStart = 1000;
        alert.windowEnd = 2000;
        alert.timestamp = 1500;
        alert.item = "x";
        alert.estimate = 70;
        alert.windowWeight = 100;
        alert.threshold = 50;
        alert.kind = HeavyHitterAlert.FRACTION;
        assertThat(roundTrip(serializer, alert)).isEqualTo(alert);
        assertThat(alert.toString()).isEqualTo("Alert{link [1000,2000) @1500 x=70 ≥ 50 (fraction, N=100)}");
    }
}
