package io.linerate.flink.serializers;

import com.esotericsoftware.kryo.Kryo;
import com.esotericsoftware.kryo.KryoException;
import com.esotericsoftware.kryo.Serializer;
import com.esotericsoftware.kryo.io.Input;
import com.esotericsoftware.kryo.io.Output;
import io.linerate.sketches.image.ImageWriter;
import java.io.IOException;
import java.io.InputStream;
import java.io.Serializable;
import java.util.concurrent.atomic.LongAdder;
import org.apache.flink.api.java.typeutils.runtime.DataInputViewStream;

/**
 * Kryo 5 serializer of a linerate structure, for structures kept inside a user's generic (Kryo-serialized)
 * types. Same format as the Flink serializer: an int length (Kryo's fixed 4-byte {@code writeInt}) and the byte
 * image. The length is validated against {@link ImageSerializer#MAX_IMAGE_BYTES}. When the input says it holds the
 * whole image ({@code available()}; inside Flink's {@code KryoSerializer}, the Flink view under it, as the Flink
 * serializer asks it), it is streamed into the structure's arrays through a 64 KiB buffer; otherwise the buffer
 * grows only as bytes arrive, so a lying length fails with a {@link KryoException} without a large allocation.
 */
public abstract class ImageKryoSerializer<T> extends Serializer<T> implements Serializable {

    private static final long serialVersionUID = 1L;

    /**
     * Structures written by any linerate Kryo serializer in this JVM; lets a test show that Flink's Kryo went
     * through these serializers (a {@link LongAdder} increment is negligible next to writing an image).
     */
    static final LongAdder WRITES = new LongAdder();

    private final ImageSerializer<T> images;

    protected ImageKryoSerializer(ImageSerializer<T> images) {
        this.images = images;
    }

    /** The length (Kryo's {@code writeInt}), then the image streamed in chunks (no array of its size). */
    @Override
    public void write(Kryo kryo, Output output, T object) {
        WRITES.increment();
        images.writeImage(object, new ImageWriter.Sink() {
            @Override
            public void begin(int imageLength) {
                output.writeInt(imageLength);
            }

            @Override
            public void write(byte[] bytes, int offset, int length) {
                output.writeBytes(bytes, offset, length);
            }
        });
    }

    @Override
    public T read(Kryo kryo, Input input, Class<? extends T> type) {
        int length = input.readInt();
        if (length < 0 || length > ImageSerializer.MAX_IMAGE_BYTES) {
            throw new KryoException(images.typeClass().getSimpleName() + " image length field is " + length
                    + ", outside [0, " + ImageSerializer.MAX_IMAGE_BYTES + "]");
        }
        try {
            if (holds(input, length)) {
                // the bytes are present: streamed into the structure's arrays through a 64 KiB buffer
                return images.readImage(input::readBytes, length);
            }
            return images.fromImage(ImageSerializer.readBytes(input::readBytes, length));
        } catch (IOException e) {
            throw new KryoException(e); // not thrown: Kryo's input reports failures as KryoExceptions
        } catch (KryoException e) {
            throw e;
        } catch (RuntimeException e) {
            // as ImageSerializer.deserialize: any runtime exception of a reader is a bad image; Errors propagate
            throw new KryoException(ImageSerializer.cannotRead(images.typeClass(), e), e);
        }
    }

    /**
     * Whether {@code input} says it holds at least {@code length} more bytes (in its buffer or its stream). Inside
     * Flink's {@code KryoSerializer} the input is a {@code NoFetchingInput} over a {@link DataInputViewStream},
     * whose {@code available()} is {@link InputStream}'s 0 whatever the view holds; there the view itself is asked,
     * as {@link ImageSerializer#deserialize} asks it (a {@code DataInputDeserializer}, or a view that is a stream
     * saying what it holds). {@code DataInputViewStream} is Flink-internal: should a Flink version wrap the view
     * otherwise, reads fall back to bytes first (correct, slower), which {@code FlinkKryoReadPathTest} shows.
     */
    private static boolean holds(Input input, int length) {
        try {
            if (input.available() >= length) {
                return true;
            }
        } catch (IOException e) {
            return false; // then read as bytes arrive
        }
        if (input.getInputStream() instanceof DataInputViewStream stream) {
            int buffered = input.limit() - input.position();
            return ImageSerializer.holds(stream.getInputView(), length - buffered);
        }
        return false;
    }

    @Override
    public T copy(Kryo kryo, T original) {
        return images.copy(original);
    }
}
