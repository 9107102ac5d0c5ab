package io.linerate.flink.serializers;

import io.linerate.sketches.flowtable.FlowTable;
import io.linerate.sketches.image.ImageReader;
import io.linerate.sketches.image.ImageWriter;
import org.apache.flink.api.common.typeutils.TypeSerializer;

/**
 * Flink serializer of {@link FlowTable}: an int length and the structure's byte image (see {@link ImageSerializer}).
 * {@link #INSTANCE} leaves the shape unspecified; {@link #expecting} records the shape the operator is
 * configured with, so that a restore of differently shaped state is reported incompatible, naming the field.
 *
 * <p>The flow table's exporter is not part of its image: a restored table has none (null exporter), and
 * the operator must attach its exporter after restore.
 */
public final class FlowTableSerializer extends ImageSerializer<FlowTable> {

    private static final long serialVersionUID = 1L;

    /** The serializer with an unspecified shape (what {@link FlowTableTypeInfo} creates). */
    public static final FlowTableSerializer INSTANCE = new FlowTableSerializer(null);

    /** @param expected the expected shape, or {@code null} for unspecified */
    public FlowTableSerializer(Shape expected) {
        super(expected);
    }

    /** A serializer expecting structures shaped like {@code prototype}. */
    public static FlowTableSerializer expecting(FlowTable prototype) {
        return new FlowTableSerializer(Shapes.of(prototype));
    }

    /** A serializer expecting tables of {@code plan}'s shape, known without building a table. */
    public static FlowTableSerializer expecting(FlowTable.Plan plan) {
        return new FlowTableSerializer(Shapes.of(plan));
    }

    @Override
    public Class<FlowTable> typeClass() {
        return FlowTable.class;
    }

    @Override
    protected byte[] toImage(FlowTable value) {
        return value.toByteArray();
    }

    @Override
    protected void writeImage(FlowTable value, ImageWriter.Sink sink) {
        value.writeImage(sink);
    }

    @Override
    protected FlowTable copyOf(FlowTable value) {
        return value.copy();
    }

    @Override
    protected FlowTable fromImage(byte[] image) {
        return FlowTable.fromByteArray(image, null);
    }

    @Override
    protected FlowTable readImage(ImageReader.Source source, int length) {
        return FlowTable.readImage(source, length, null);
    }

    @Override
    protected ImageSerializerSnapshot<FlowTable> newSnapshot(Shape shape) {
        return new Snapshot(shape);
    }

    /** Snapshot of a {@link FlowTableSerializer}: its expected shape. */
    public static final class Snapshot extends ImageSerializerSnapshot<FlowTable> {

        /** For Flink's reflective instantiation on restore. */
        public Snapshot() {
        }

        Snapshot(Shape shape) {
            super(shape);
        }

        @Override
        protected TypeSerializer<FlowTable> createSerializer(Shape shape) {
            return new FlowTableSerializer(shape);
        }
    }
}
