package io.linerate.flink.state;

import java.io.IOException;
import java.util.List;
import org.apache.flink.core.memory.DataOutputView;

/**
 * The configuration a restored operator state must agree on with the job that reads it, as recorded in its
 * serializer's snapshot ({@link ShapeCheckedSnapshot}).
 *
 * @param <S> the implementing shape
 */
public interface StateShape<S extends StateShape<S>> {

    void write(DataOutputView out) throws IOException;

    /**
     * Fields that differ from {@code old} so that state written under it cannot be read under this shape, each as
     * {@code "name: old -> new"}; empty if none.
     */
    List<String> differencesFrom(S old);

    /**
     * Fields that differ from {@code old} but leave its state readable (logged on restore, not refused); empty by
     * default.
     */
    default List<String> readableDifferencesFrom(S old) {
        return List.of();
    }

    /** Adds {@code "name: before -> after"} to {@code out} if the two differ: the lines of {@link #differencesFrom}. */
    static void diff(List<String> out, String name, Object before, Object after) {
        if (!before.equals(after)) {
            out.add(name + ": " + before + " -> " + after);
        }
    }
}
