package io.linerate.flink.heavyhitters;

import io.linerate.flink.serializers.ImageTypeInfo;
import java.util.Objects;
import org.apache.flink.api.common.serialization.SerializerConfig;
import org.apache.flink.api.common.typeutils.TypeSerializer;

/**
 * Type information of a scope key's open sub-window indexes (a {@code long[]}), serialized by
 * {@link OpenSubWindowsSerializer}, whose snapshot records the configured operator's {@link WindowShape}.
 */
public final class OpenSubWindowsTypeInfo extends ImageTypeInfo<long[]> {

    private static final long serialVersionUID = 1L;

    private final WindowShape shape;

    /** Indexes of any shape (a restore is not checked against a configuration). */
    public OpenSubWindowsTypeInfo() {
        this(null);
    }

    /** @param shape the operator's shape, or {@code null} to accept any */
    OpenSubWindowsTypeInfo(WindowShape shape) {
        super(long[].class);
        this.shape = shape;
    }

    @Override
    public TypeSerializer<long[]> createSerializer(SerializerConfig config) {
        return new OpenSubWindowsSerializer(shape);
    }

    @Override
    public boolean equals(Object o) {
        return super.equals(o) && Objects.equals(shape, ((OpenSubWindowsTypeInfo) o).shape);
    }

    @Override
    public int hashCode() {
        return super.hashCode() * 31 + Objects.hashCode(shape);
    }
}
