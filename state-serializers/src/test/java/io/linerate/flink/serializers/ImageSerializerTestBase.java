package io.linerate.flink.serializers;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.function.IntFunction;
import org.apache.flink.api.common.typeutils.SerializerTestBase;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.testutils.DeeplyEqualsChecker;

/**
 * Flink's serializer test base for a linerate serializer. The structures do not implement {@code equals}, so
 * two instances are deeply equal when their byte images are. {@code createInstance()} returns {@code null} by
 * design (a structure needs its shape), which the base is told to allow.
 */
abstract class ImageSerializerTestBase<T> extends SerializerTestBase<T> {

    ImageSerializerTestBase() {
        // used by the base's concurrent duplicate() test, which does not go through deepEquals(...)
        super(new DeeplyEqualsChecker().withCustomCheck(
                (a, b) -> a != null && b != null && a.getClass() == b.getClass() && hasImage(a),
                (a, b, checker) -> Arrays.equals(imageOf(a), imageOf(b))));
    }

    private static boolean hasImage(Object o) {
        try {
            o.getClass().getMethod("toByteArray");
            return true;
        } catch (NoSuchMethodException e) {
            return false;
        }
    }

    private static byte[] imageOf(Object o) {
        if (o instanceof io.linerate.sketches.bloom.BloomFilter f) {
            return f.toByteArray(); // the declaring class of the Bloom filters' toByteArray is package-private
        }
        try {
            return (byte[]) o.getClass().getMethod("toByteArray").invoke(o);
        } catch (ReflectiveOperationException e) {
            throw new AssertionError(e);
        }
    }

    /** Instance {@code i} of the test data: same shape, distinct content per {@code i}. */
    protected abstract T sample(int i);

    protected abstract ImageSerializer<T> serializerExpecting(T prototype);

    @Override
    protected TypeSerializer<T> createSerializer() {
        return serializerExpecting(sample(0));
    }

    @Override
    protected int getLength() {
        return -1;
    }

    @Override
    @SuppressWarnings("unchecked")
    protected T[] getTestData() {
        IntFunction<T> f = this::sample;
        T[] out = (T[]) java.lang.reflect.Array.newInstance(getTypeClass(), 4);
        for (int i = 0; i < out.length; i++) {
            out[i] = f.apply(i);
        }
        return out;
    }

    @Override
    protected boolean allowNullInstances(TypeSerializer<T> serializer) {
        return true;
    }

    @Override
    protected void deepEquals(String message, T should, T is) {
        assertThat(is).as(message).isNotNull();
        assertThat(Arrays.equals(image(should), image(is))).as(message + ": images differ").isTrue();
    }

    private byte[] image(T value) {
        return ((ImageSerializer<T>) getSerializer()).toImage(value);
    }
}
