package io.linerate.flink.serializers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.linerate.sketches.hash.FiveTuple;
import java.io.IOException;
import java.util.List;
import org.apache.flink.api.common.serialization.SerializerConfigImpl;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeutils.SerializerTestBase;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.java.typeutils.PojoTypeInfo;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.junit.jupiter.api.Test;

/**
 * Flink's serializer test base for {@link FiveTupleSerializer}, and what the type information is for: a user's record
 * with a {@code FiveTuple} field (the README's packet) stays a POJO, with no Kryo field, once the factories are
 * registered.
 */
class FiveTupleSerializerTest extends SerializerTestBase<FiveTuple> {

    @Override
    protected TypeSerializer<FiveTuple> createSerializer() {
        return FiveTupleSerializer.INSTANCE;
    }

    @Override
    protected int getLength() {
        return FiveTupleSerializer.LENGTH;
    }

    @Override
    protected Class<FiveTuple> getTypeClass() {
        return FiveTuple.class;
    }

    @Override
    protected FiveTuple[] getTestData() {
        return new FiveTuple[] {
            FiveTuple.ipv4(0x0A000001, 0xC0A80001, 40000, 443, 6),
            FiveTuple.ipv4(-1, 0, 65535, 0, 255),
            FiveTuple.ipv6(0x20010DB800000000L, 1, -1L, -1L, 5000, 53, 17),
            FiveTuple.ipv6(0, 0xFFFF_0A00_0001L, 0, 2, 1, 2, 6), // an IPv4-mapped IPv6 address stays IPv6
        };
    }

    public static final class Packet {
        public String link;
        public FiveTuple flow;
        public int length;
    }

    @Test
    void aRecordWithAFiveTupleFieldStaysAPojoWithoutKryo() {
        LinerateTypes.register();
        TypeInformation<Packet> info = TypeInformation.of(Packet.class);
        assertThat(info).isInstanceOf(PojoTypeInfo.class);
        PojoTypeInfo<Packet> pojo = (PojoTypeInfo<Packet>) info;
        assertThat(pojo.getTypeAt(pojo.getFieldIndex("flow"))).isSameAs(FiveTupleTypeInfo.INSTANCE);
        SerializerConfigImpl noKryo = new SerializerConfigImpl();
        noKryo.setGenericTypes(false);
        assertThat(info.createSerializer(noKryo)).isNotNull(); // would throw if a field needed Kryo
    }

    @Test
    void corruptBytesAreAnIOExceptionNotAnotherTuple() throws IOException {
        DataOutputSerializer out = new DataOutputSerializer(64);
        FiveTupleSerializer.INSTANCE.serialize(FiveTuple.ipv4(1, 2, 3, 4, 6), out);
        byte[] good = out.getCopyOfBuffer();
        for (List<Object> c : List.of(List.<Object>of(0, (byte) 5, "IP version 5"),
                // the source's and destination's high words, and the lowest bit above 32 of each low word
                List.<Object>of(1, (byte) 1, "fit 32 bits"), List.<Object>of(9, (byte) 1, "fit 32 bits"),
                List.<Object>of(12, (byte) 1, "fit 32 bits"), List.<Object>of(17, (byte) 1, "fit 32 bits"),
                List.<Object>of(28, (byte) 1, "fit 32 bits"))) {
            byte[] bad = good.clone();
            bad[(Integer) c.get(0)] = (Byte) c.get(1);
            assertThatThrownBy(() -> FiveTupleSerializer.INSTANCE.deserialize(new DataInputDeserializer(bad)))
                    .isInstanceOf(IOException.class).hasMessageContaining((String) c.get(2));
        }
    }

    /**
     * copy(view, view) into Flink's growable DataOutputSerializer, as serialize writes into it: two tuples back to
     * back, each copied whole. (DataOutputSerializer.write(DataInputView, n) does not grow its buffer.)
     */
    @Test
    void copyingBetweenViewsGrowsTheTargetAsSerializeDoes() throws IOException {
        DataOutputSerializer out = new DataOutputSerializer(8);
        FiveTuple a = FiveTuple.ipv4(0x0A000001, 0xC0A80001, 40000, 443, 6);
        FiveTuple b = FiveTuple.ipv6(0x20010DB800000000L, 1, -1L, -1L, 5000, 53, 17);
        FiveTupleSerializer.INSTANCE.serialize(a, out);
        FiveTupleSerializer.INSTANCE.serialize(b, out);
        byte[] two = out.getCopyOfBuffer();
        DataInputDeserializer in = new DataInputDeserializer(two);
        DataOutputSerializer copied = new DataOutputSerializer(8);
        FiveTupleSerializer.INSTANCE.copy(in, copied);
        FiveTupleSerializer.INSTANCE.copy(in, copied);
        assertThat(in.available()).isZero();
        assertThat(copied.getCopyOfBuffer()).isEqualTo(two);
    }

    /** A tuple is immutable, which is what lets copy hand back the tuple itself (Flink then skips copies too). */
    @Test
    void tuplesAreImmutableSoACopyIsTheTupleItself() {
        FiveTuple t = FiveTuple.ipv4(1, 2, 3, 4, 6);
        assertThat(FiveTupleSerializer.INSTANCE.isImmutableType()).isTrue();
        assertThat(FiveTupleSerializer.INSTANCE.copy(t)).isSameAs(t);
        assertThat(FiveTupleSerializer.INSTANCE.copy(t, FiveTupleSerializer.INSTANCE.createInstance())).isSameAs(t);
    }
}
