package io.linerate.sketches.hotpath;

import com.dynatrace.hash4j.hashing.Hasher64;
import io.linerate.sketches.hash.ItemHasher;
import java.lang.reflect.Field;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;

/** Counts the hash4j calls of one {@link ItemHasher} by swapping its Hasher64 for a counting proxy (tests only). */
final class CountingHasher {

    long calls;
    /** The arguments of each call while not null (boxed: a test's bookkeeping, not the measured path). */
    java.util.List<java.util.List<Object>> recorded;

    private CountingHasher() {
    }

    /** Installs a counter on {@code hasher}; it must not be the shared default-seed instance. */
    static CountingHasher install(ItemHasher hasher) {
        if (hasher == ItemHasher.defaultHasher()) {
            throw new IllegalArgumentException("use a non-default seed: the default hasher is shared");
        }
        try {
            Field f = ItemHasher.class.getDeclaredField("hasher");
            f.setAccessible(true);
            Hasher64 real = (Hasher64) f.get(hasher);
            CountingHasher counter = new CountingHasher();
            Object proxy = Proxy.newProxyInstance(Hasher64.class.getClassLoader(), new Class<?>[] {Hasher64.class},
                    (p, m, args) -> {
                        if (m.getName().startsWith("hash")) {
                            counter.calls++;
                            if (counter.recorded != null) {
                                counter.recorded.add(java.util.Arrays.asList(args));
                            }
                        }
                        try {
                            return m.invoke(real, args);
                        } catch (InvocationTargetException e) {
                            throw e.getCause();
                        }
                    });
            f.set(hasher, proxy);
            return counter;
        } catch (ReflectiveOperationException e) {
            throw new AssertionError(e);
        }
    }
}
