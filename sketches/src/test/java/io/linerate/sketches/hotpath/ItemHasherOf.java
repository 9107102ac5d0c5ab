package io.linerate.sketches.hotpath;

import io.linerate.sketches.flowtable.FlowTable;
import io.linerate.sketches.hash.ItemHasher;

final class ItemHasherOf {

    private ItemHasherOf() {
    }

    static ItemHasher field(Object o, String name) {
        try {
            java.lang.reflect.Field f = o.getClass().getDeclaredField(name);
            f.setAccessible(true);
            return (ItemHasher) f.get(o);
        } catch (ReflectiveOperationException e) {
            throw new AssertionError(e);
        }
    }

    static ItemHasher flowTable(FlowTable t) {
        return field(t, "hasher");
    }
}
