package io.linerate.flink.serializers;

import io.linerate.sketches.frequency.CountMinSketch;
import java.lang.reflect.Type;
import java.util.Map;
import java.util.Objects;
import org.apache.flink.api.common.serialization.SerializerConfig;
import org.apache.flink.api.common.typeinfo.TypeInfoFactory;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeutils.TypeSerializer;

/**
 * Type information of {@link CountMinSketch}: serialized by {@link CountMinSketchSerializer}, never by Kryo or as a
 * POJO. Built with a {@link Shape} (state of an operator configured with one), its serializer's snapshot records
 * that shape, so a restore into an operator configured otherwise is incompatible, naming the field.
 */
public final class CountMinSketchTypeInfo extends ImageTypeInfo<CountMinSketch> {

    private static final long serialVersionUID = 1L;

    private final Shape expected;

    /** Sketches of any shape (what Flink's type extraction creates). */
    public CountMinSketchTypeInfo() {
        this(null);
    }

    /** @param expected the shape of every sketch, for example {@link Shapes#countMin}; {@code null} for any */
    public CountMinSketchTypeInfo(Shape expected) {
        super(CountMinSketch.class);
        this.expected = expected;
    }

    @Override
    public TypeSerializer<CountMinSketch> createSerializer(SerializerConfig config) {
        return expected == null ? CountMinSketchSerializer.INSTANCE : new CountMinSketchSerializer(expected);
    }

    @Override
    public boolean equals(Object o) {
        return super.equals(o) && Objects.equals(expected, ((CountMinSketchTypeInfo) o).expected);
    }

    @Override
    public int hashCode() {
        return super.hashCode() * 31 + Objects.hashCode(expected);
    }

    @Override
    public String toString() {
        return expected == null ? super.toString() : super.toString() + expected;
    }

    /** Registered by {@link LinerateTypes#register}: {@code CountMinSketch} cannot carry {@code @TypeInfo}. */
    public static final class Factory extends TypeInfoFactory<CountMinSketch> {
        @Override
        public TypeInformation<CountMinSketch> createTypeInfo(Type t, Map<String, TypeInformation<?>> genericParameters) {
            return new CountMinSketchTypeInfo();
        }
    }
}
