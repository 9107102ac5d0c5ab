package io.linerate.flink.heavyhitters;

import io.linerate.flink.state.ShapeCheckedSnapshot;
import java.io.IOException;
import org.apache.flink.core.memory.DataInputView;

/**
 * The serializer snapshots of the heavy-hitters state: each records the operator's {@link WindowShape} (a flag, then
 * the shape's fields), so that a restore into an operator of another shape is incompatible, naming every field that
 * changed. Subclasses keep their own class name (what checkpoints name) and restore their serializer; they are at
 * version {@value #FIRST_VERSION} unless they override {@link #getCurrentVersion} and {@link #readSnapshot} (as a
 * snapshot with older versions to read does).
 *
 * @param <T> the state type
 */
abstract class WindowShapeSnapshot<T> extends ShapeCheckedSnapshot<T, WindowShape> {

    static final int FIRST_VERSION = 1;

    WindowShapeSnapshot(WindowShape shape) {
        super(shape);
    }

    @Override
    public int getCurrentVersion() {
        return FIRST_VERSION;
    }

    /** Reads the shape written at {@link #getCurrentVersion}, the only version this snapshot has. */
    @Override
    public void readSnapshot(int readVersion, DataInputView in, ClassLoader classLoader) throws IOException {
        readCurrentVersion(readVersion, in, getClass().getEnclosingClass().getSimpleName());
    }

    @Override
    protected final String stateName() {
        return "heavy-hitters";
    }

    /** Reads the shape written at this class's current version; any other version is refused, naming both. */
    final void readCurrentVersion(int readVersion, DataInputView in, String serializer) throws IOException {
        if (readVersion != getCurrentVersion()) {
            throw new IOException(serializer + " snapshot version " + readVersion + " is not supported, this library"
                    + " reads version " + getCurrentVersion());
        }
        shape(hasShape(in) ? WindowShape.read(in) : null);
    }
}
