package io.linerate.flink.heavyhitters;

import io.linerate.flink.state.ShapeCheckedSnapshot;
import java.io.IOException;
import org.apache.flink.core.memory.DataInputView;

/**
 * The serializer snapshots of the heavy-hitters state: each records the operator's {@link WindowShape} (a flag, then
 * the shape's fields), so that a restore into an operator of another shape is incompatible, naming every field that
 * changed. Subclasses keep their own class name and version (what checkpoints name) and restore their serializer.
 *
 * @param <T> the state type
 */
abstract class WindowShapeSnapshot<T> extends ShapeCheckedSnapshot<T, WindowShape> {

    WindowShapeSnapshot(WindowShape shape) {
        super(shape);
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
