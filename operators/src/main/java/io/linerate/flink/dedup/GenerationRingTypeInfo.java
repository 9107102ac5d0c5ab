package io.linerate.flink.dedup;

import io.linerate.flink.serializers.ImageTypeInfo;

import java.util.Objects;
import org.apache.flink.api.common.serialization.SerializerConfig;
import org.apache.flink.api.common.typeutils.TypeSerializer;

/**
 * Type information of a {@link GenerationRing}: serialized by {@link GenerationRingSerializer} (never Kryo), which
 * expects the ring shape of the configured operator, so a restore into a differently sized operator is reported
 * incompatible.
 */
public final class GenerationRingTypeInfo extends ImageTypeInfo<GenerationRing> {

    private static final long serialVersionUID = 1L;

    private final RingShape shape;

    GenerationRingTypeInfo(RingShape shape) {
        super(GenerationRing.class);
        this.shape = shape;
    }

    @Override
    public TypeSerializer<GenerationRing> createSerializer(SerializerConfig config) {
        return new GenerationRingSerializer(shape);
    }

    @Override
    public boolean equals(Object o) {
        return super.equals(o) && Objects.equals(shape, ((GenerationRingTypeInfo) o).shape);
    }

    @Override
    public int hashCode() {
        return super.hashCode() * 31 + Objects.hashCode(shape);
    }
}
