package io.linerate.flink.serializers;

import static org.assertj.core.api.Assertions.assertThat;

import io.linerate.sketches.bloom.StandardBloomFilter;
import io.linerate.sketches.frequency.BlockedCountMinSketch;
import io.linerate.sketches.frequency.CountMinSketch;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.nio.file.FileSystem;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.LinkedHashSet;
import java.util.Set;
import java.util.stream.Stream;
import org.apache.flink.api.common.serialization.SerializerConfigImpl;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.java.typeutils.GenericTypeInfo;
import org.apache.flink.api.java.typeutils.PojoTypeInfo;
import org.apache.flink.api.java.typeutils.TypeExtractor;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.PipelineOptions;
import org.junit.jupiter.api.Test;

/** The direct route; {@link LinerateTypesConfigurationTest} (own JVM: Flink's registry is global) the other. */
class LinerateTypesTest {

    @Test
    void everyStructureGetsItsOwnTypeInformationAfterRegistration() {
        LinerateTypes.register();
        LinerateTypes.register(); // idempotent
        for (Class<?> type : LinerateTypes.factoryClasses().keySet()) {
            TypeInformation<?> info = TypeInformation.of(type);
            if (type == io.linerate.sketches.hash.FiveTuple.class) { // a key, not a structure: no image
                assertThat(info).isSameAs(FiveTupleTypeInfo.INSTANCE);
                assertThat(info.isKeyType()).isTrue();
                continue;
            }
            assertThat(info).as(type.getSimpleName()).isInstanceOf(ImageTypeInfo.class)
                    .isNotInstanceOf(GenericTypeInfo.class).isNotInstanceOf(PojoTypeInfo.class);
            assertThat(info.getTypeClass()).isEqualTo(type);
            assertThat(info.createSerializer(new SerializerConfigImpl())).isInstanceOf(ImageSerializer.class);
            assertThat(TypeExtractor.createTypeInfo(type)).isEqualTo(info);
        }
        assertThat(TypeInformation.of(CountMinSketch.class)).isEqualTo(new CountMinSketchTypeInfo());
        assertThat(TypeInformation.of(CountMinSketch.class).createSerializer(new SerializerConfigImpl()))
                .isSameAs(CountMinSketchSerializer.INSTANCE);
        assertThat(TypeInformation.of(BlockedCountMinSketch.class)).isEqualTo(new BlockedCountMinSketchTypeInfo());
        assertThat(TypeInformation.of(BlockedCountMinSketch.class).createSerializer(new SerializerConfigImpl()))
                .isSameAs(BlockedCountMinSketchSerializer.INSTANCE);
    }

    /**
     * Every structure of {@code linerate-sketches} (a public concrete class with a public {@code byte[] toByteArray()},
     * its image) has its type information and its Kryo serializer in {@link LinerateTypes}, so that a new structure
     * cannot be left out.
     */
    @Test
    void everyStructureOfTheSketchesModuleIsRegistered() throws Exception {
        Set<Class<?>> structures = structures(CountMinSketch.class);
        assertThat(structures).contains(StandardBloomFilter.class, CountMinSketch.class, BlockedCountMinSketch.class);
        Set<Class<?>> withKey = new LinkedHashSet<>(structures);
        withKey.add(io.linerate.sketches.hash.FiveTuple.class);
        assertThat(LinerateTypes.factoryClasses().keySet()).containsExactlyInAnyOrderElementsOf(withKey);
        assertThat(LinerateTypes.kryoSerializerClasses().keySet()).containsExactlyInAnyOrderElementsOf(structures);
    }

    /** The structures among the classes of {@code anchor}'s classes directory or jar. */
    private static Set<Class<?>> structures(Class<?> anchor) throws Exception {
        Path location = Paths.get(anchor.getProtectionDomain().getCodeSource().getLocation().toURI());
        Set<Class<?>> out = new LinkedHashSet<>();
        try (FileSystem jar = Files.isDirectory(location) ? null : FileSystems.newFileSystem(location)) {
            Path root = jar == null ? location : jar.getPath("/");
            try (Stream<Path> files = Files.walk(root)) {
                for (Path p : files.filter(f -> f.toString().endsWith(".class")).sorted().toList()) {
                    String file = root.relativize(p).toString().replace(p.getFileSystem().getSeparator(), ".");
                    if (file.contains("-")) {
                        continue; // module-info, package-info
                    }
                    Class<?> c = Class.forName(file.substring(0, file.length() - ".class".length()), false,
                            anchor.getClassLoader());
                    if (Modifier.isPublic(c.getModifiers()) && !Modifier.isAbstract(c.getModifiers())
                            && !c.isInterface() && hasImage(c)) {
                        out.add(c);
                    }
                }
            }
        }
        return out;
    }

    private static boolean hasImage(Class<?> c) {
        try {
            Method m = c.getMethod("toByteArray");
            return m.getReturnType() == byte[].class && !Modifier.isStatic(m.getModifiers());
        } catch (NoSuchMethodException e) {
            return false;
        }
    }

    @Test
    void registerOnEmptyConfiguration() {
        Configuration conf = LinerateTypes.register(new Configuration());
        assertThat(conf.get(PipelineOptions.SERIALIZATION_CONFIG)).hasSize(LinerateTypes.factoryClasses().size());
    }
}
