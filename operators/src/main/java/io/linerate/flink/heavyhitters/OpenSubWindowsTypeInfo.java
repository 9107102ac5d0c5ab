package io.linerate.flink.heavyhitters;

import org.apache.flink.api.common.serialization.SerializerConfig;
import org.apache.flink.api.common.typeutils.TypeSerializer;

/**
 * Type information of a scope key's open sub-window indexes (a {@code long[]}), serialized by
 * {@link OpenSubWindowsSerializer}, whose snapshot records the configured operator's {@link WindowShape}.
 */
public final class OpenSubWindowsTypeInfo extends WindowShapeTypeInfo<long[]> {

    private static final long serialVersionUID = 1L;

    /** Indexes of any shape (a restore is not checked against a configuration). */
    public OpenSubWindowsTypeInfo() {
        this(null);
    }

    /** @param shape the configured operator's shape, or {@code null} to accept any */
    OpenSubWindowsTypeInfo(WindowShape shape) {
        super(long[].class, shape);
    }

    @Override
    public TypeSerializer<long[]> createSerializer(SerializerConfig config) {
        return new OpenSubWindowsSerializer(shape);
    }
}
