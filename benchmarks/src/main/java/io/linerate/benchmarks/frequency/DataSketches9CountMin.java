package io.linerate.benchmarks.frequency;

import java.io.File;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.reflect.Constructor;
import java.net.URL;
import java.net.URLClassLoader;

/**
 * Apache DataSketches 9's {@code org.apache.datasketches.count.CountMinSketch}, the first DataSketches release
 * with a Count-Min sketch. It is compiled for Java 25 and shares its Maven coordinates with the DataSketches
 * 6.2.0 the rest of this module uses, so it cannot be an ordinary dependency: the {@code jdk25} profile copies
 * its jar to {@code benchmarks/target/datasketches9/datasketches-java.jar}, and this adapter loads it in a class
 * loader of its own and calls it through constant method handles (which the JIT inlines like direct calls).
 *
 * <p>Needs a JDK 25 at run time. The jar's location can be set with
 * {@code -Dlinerate.datasketches9.jar=PATH}; by default it is looked for relative to the working directory.
 * DataSketches 9.0.0's constructor {@code CountMinSketch(byte numHashes, int numBuckets, long seed)} is
 * package-private (its only public factory is {@code deserialize}), so the adapter opens it by reflection.
 */
final class DataSketches9CountMin implements CountMinAdapter {

    static final String JAR_PROPERTY = "linerate.datasketches9.jar";
    private static final String CLASS = "org.apache.datasketches.count.CountMinSketch";

    private static final Class<?> TYPE;
    private static final MethodHandle UPDATE;
    private static final MethodHandle ESTIMATE;
    private static final String PROBLEM;

    static {
        Class<?> type = null;
        MethodHandle update = null;
        MethodHandle estimate = null;
        String problem = null;
        File jar = locate();
        if (Runtime.version().feature() < 25) {
            problem = "DataSketches 9 needs Java 25; this JVM is " + Runtime.version();
        } else if (jar == null) {
            problem = "DataSketches 9 jar not found: build with -Pjdk25 or set -D" + JAR_PROPERTY;
        } else {
            try {
                URLClassLoader loader = new ChildFirst(jar.toURI().toURL(),
                        DataSketches9CountMin.class.getClassLoader());
                type = Class.forName(CLASS, true, loader);
                MethodHandles.Lookup lookup = MethodHandles.publicLookup();
                update = lookup.findVirtual(type, "update", MethodType.methodType(void.class, long.class, long.class))
                        .asType(MethodType.methodType(void.class, Object.class, long.class, long.class));
                estimate = lookup.findVirtual(type, "getEstimate", MethodType.methodType(long.class, long.class))
                        .asType(MethodType.methodType(long.class, Object.class, long.class));
            } catch (ReflectiveOperationException | java.net.MalformedURLException | LinkageError e) {
                problem = "cannot load DataSketches 9 from " + jar + ": " + e;
                type = null;
            }
        }
        TYPE = type;
        UPDATE = update;
        ESTIMATE = estimate;
        PROBLEM = problem;
    }

    /**
     * Loads DataSketches' classes from the 9.0.0 jar before asking its parent: the benchmarks jar holds DataSketches
     * 6.2.0, whose classes of the same names (its {@code hash.MurmurHash3}, {@code common.*}) a parent-first loader
     * would have given the 9.0.0 sketch. Everything else (the JDK) comes from the parent.
     */
    private static final class ChildFirst extends URLClassLoader {
        private static final String OWN = "org.apache.datasketches.";

        ChildFirst(URL jar, ClassLoader parent) {
            super(new URL[] {jar}, parent);
        }

        @Override
        protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
            if (!name.startsWith(OWN)) {
                return super.loadClass(name, resolve);
            }
            synchronized (getClassLoadingLock(name)) {
                Class<?> c = findLoadedClass(name);
                if (c == null) {
                    c = findClass(name); // only from the 9.0.0 jar: a class it lacks is an error, not 6.2.0's
                }
                if (resolve) {
                    resolveClass(c);
                }
                return c;
            }
        }
    }

    private final Object sketch;
    private final int width;
    private final int depth;

    private DataSketches9CountMin(Object sketch, int depth, int width) {
        this.sketch = sketch;
        this.depth = depth;
        this.width = width;
    }

    private static File locate() {
        String configured = System.getProperty(JAR_PROPERTY);
        if (configured != null) {
            File f = new File(configured);
            return f.isFile() ? f : null;
        }
        for (String candidate : new String[] {"benchmarks/target/datasketches9/datasketches-java.jar",
                "target/datasketches9/datasketches-java.jar"}) {
            File f = new File(candidate);
            if (f.isFile()) {
                return f;
            }
        }
        return null;
    }

    static boolean isAvailable() {
        return PROBLEM == null;
    }

    /** Why it is not available, or null. */
    static String problem() {
        return PROBLEM;
    }

    static DataSketches9CountMin create(int depth, int width, long seed) {
        if (PROBLEM != null) {
            throw new IllegalStateException(PROBLEM);
        }
        try {
            Constructor<?> c = TYPE.getDeclaredConstructor(byte.class, int.class, long.class);
            c.setAccessible(true);
            return new DataSketches9CountMin(c.newInstance((byte) depth, width, seed), depth, width);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("cannot create a DataSketches 9 CountMinSketch", e);
        }
    }

    @Override
    public String name() {
        return CountMins.DATASKETCHES9;
    }

    @Override
    public void update(long key) {
        try {
            UPDATE.invokeExact(sketch, key, 1L);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    @Override
    public long estimate(long key) {
        try {
            return (long) ESTIMATE.invokeExact(sketch, key);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    private static RuntimeException rethrow(Throwable t) {
        if (t instanceof RuntimeException) {
            return (RuntimeException) t;
        }
        if (t instanceof Error) {
            throw (Error) t;
        }
        return new IllegalStateException(t);
    }

    @Override
    public int width() {
        return width;
    }

    @Override
    public int depth() {
        return depth;
    }

    @Override
    public String description() {
        return "DataSketches 9.0.0 count.CountMinSketch(numHashes 7, numBuckets 2000, seed)";
    }

    @Override
    public Object unwrap() {
        return sketch;
    }
}
