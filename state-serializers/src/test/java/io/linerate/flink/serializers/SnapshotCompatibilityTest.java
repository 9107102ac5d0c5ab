package io.linerate.flink.serializers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.linerate.sketches.bloom.BalancedBloomFilter;
import io.linerate.sketches.bloom.BlockedBloomFilter;
import io.linerate.sketches.bloom.CountingBloomFilter;
import io.linerate.sketches.bloom.PartitionedBloomFilter;
import io.linerate.sketches.bloom.SplitBlockBloomFilter;
import io.linerate.sketches.bloom.StandardBloomFilter;
import io.linerate.sketches.flowtable.FlowKeyFormat;
import io.linerate.sketches.flowtable.FlowTable;
import io.linerate.sketches.frequency.BlockedCountMinSketch;
import io.linerate.sketches.frequency.CountMinHeap;
import io.linerate.sketches.frequency.CountMinSketch;
import io.linerate.sketches.frequency.KeyKind;
import io.linerate.sketches.frequency.RowIndexing;
import io.linerate.sketches.frequency.SpaceSaving;
import java.io.IOException;
import java.util.Arrays;
import java.util.stream.Stream;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.common.typeutils.TypeSerializerSchemaCompatibility;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Snapshot write/read and compatibility: same shape compatible as is, each unsound change incompatible. */
class SnapshotCompatibilityTest {

    /** (case, serializer of the old state, serializer of the new operator, expected difference text). */
    static Stream<Arguments> incompatibleChanges() {
        return Stream.of(
                Arguments.of("standard bits", StandardBloomFilterSerializer.expecting(StandardBloomFilter.withBits(4096, 5, 1)),
                        StandardBloomFilterSerializer.expecting(StandardBloomFilter.withBits(8192, 5, 1)), "bits: 4096 -> 8192"),
                Arguments.of("standard k", StandardBloomFilterSerializer.expecting(StandardBloomFilter.withBits(4096, 5, 1)),
                        StandardBloomFilterSerializer.expecting(StandardBloomFilter.withBits(4096, 6, 1)), "hashCount: 5 -> 6"),
                Arguments.of("standard seed", StandardBloomFilterSerializer.expecting(StandardBloomFilter.withBits(4096, 5, 1)),
                        StandardBloomFilterSerializer.expecting(StandardBloomFilter.withBits(4096, 5, 2)), "seed: 1 -> 2"),
                Arguments.of("partitioned k", PartitionedBloomFilterSerializer.expecting(PartitionedBloomFilter.withBits(4096, 4, 1)),
                        PartitionedBloomFilterSerializer.expecting(PartitionedBloomFilter.withBits(4096, 8, 1)), "hashCount: 4 -> 8"),
                Arguments.of("blocked blockBits", BlockedBloomFilterSerializer.expecting(BlockedBloomFilter.withBits(8192, 6, 1, 512)),
                        BlockedBloomFilterSerializer.expecting(BlockedBloomFilter.withBits(8192, 6, 1, 256)), "blockBits: 512 -> 256"),
                Arguments.of("split-block bits", SplitBlockBloomFilterSerializer.expecting(SplitBlockBloomFilter.withBits(8192, 1)),
                        SplitBlockBloomFilterSerializer.expecting(SplitBlockBloomFilter.withBits(16384, 1)), "bits: 8192 -> 16384"),
                Arguments.of("split-block seed", SplitBlockBloomFilterSerializer.expecting(SplitBlockBloomFilter.withBits(8192, 1)),
                        SplitBlockBloomFilterSerializer.expecting(SplitBlockBloomFilter.withBits(8192, 4)), "seed: 1 -> 4"),
                Arguments.of("balanced seed", BalancedBloomFilterSerializer.expecting(BalancedBloomFilter.create(2000, 0.01, 1)),
                        BalancedBloomFilterSerializer.expecting(BalancedBloomFilter.create(2000, 0.01, 3)), "seed: 1 -> 3"),
                Arguments.of("counting counterBits", CountingBloomFilterSerializer.expecting(CountingBloomFilter.withCounters(4096, 4, 4, 1)),
                        CountingBloomFilterSerializer.expecting(CountingBloomFilter.withCounters(4096, 4, 8, 1)), "counterBits: 4 -> 8"),
                Arguments.of("count-min width", CountMinSketchSerializer.expecting(cms(2048, 4, 1, false)),
                        CountMinSketchSerializer.expecting(cms(4096, 4, 1, false)), "width: 2048 -> 4096"),
                Arguments.of("count-min depth", CountMinSketchSerializer.expecting(cms(2048, 4, 1, false)),
                        CountMinSketchSerializer.expecting(cms(2048, 5, 1, false)), "depth: 4 -> 5"),
                Arguments.of("count-min seed", CountMinSketchSerializer.expecting(cms(2048, 4, 1, false)),
                        CountMinSketchSerializer.expecting(cms(2048, 4, 9, false)), "seed: 1 -> 9"),
                Arguments.of("count-min conservative", CountMinSketchSerializer.expecting(cms(2048, 4, 1, false)),
                        CountMinSketchSerializer.expecting(cms(2048, 4, 1, true)), "conservative: false -> true"),
                Arguments.of("count-min row indexing", CountMinSketchSerializer.expecting(cms(2048, 4, 1, false)),
                        CountMinSketchSerializer.expecting(CountMinSketch.withShape(2048, 4, 1, RowIndexing.MIXED_32,
                                false)), "indexing: FULL_WIDTH -> MIXED_32"),
                Arguments.of("blocked count-min blocks", BlockedCountMinSketchSerializer.expecting(bcms(256, 1)),
                        BlockedCountMinSketchSerializer.expecting(bcms(512, 1)), "blocks: 256 -> 512"),
                Arguments.of("blocked count-min seed", BlockedCountMinSketchSerializer.expecting(bcms(256, 1)),
                        BlockedCountMinSketchSerializer.expecting(bcms(256, 9)), "seed: 1 -> 9"),
                Arguments.of("space-saving capacity", SpaceSavingSerializer.expecting(SpaceSaving.withCapacity(KeyKind.longs(), 64, 1)),
                        SpaceSavingSerializer.expecting(SpaceSaving.withCapacity(KeyKind.longs(), 128, 1)), "capacity: 64 -> 128"),
                Arguments.of("space-saving key kind", SpaceSavingSerializer.expecting(SpaceSaving.withCapacity(KeyKind.longs(), 64, 1)),
                        SpaceSavingSerializer.expecting(SpaceSaving.withCapacity(KeyKind.fiveTuples(), 64, 1)), "keyKind: "),
                Arguments.of("count-min heap width", CountMinHeapSerializer.expecting(CountMinHeap.create(KeyKind.longs(), 32, 256, 4, true, 1)),
                        CountMinHeapSerializer.expecting(CountMinHeap.create(KeyKind.longs(), 32, 512, 4, true, 1)), "width: 256 -> 512"),
                Arguments.of("flow table user slots", FlowTableSerializer.expecting(FlowTable.builder().capacity(1000).seed(1).build()),
                        FlowTableSerializer.expecting(FlowTable.builder().capacity(1000).seed(1).userSlots(2).build()), "userSlots: 0 -> 2"),
                Arguments.of("flow table key format", FlowTableSerializer.expecting(FlowTable.builder().capacity(1000).seed(1).build()),
                        FlowTableSerializer.expecting(FlowTable.builder().capacity(1000).seed(1).keyFormat(FlowKeyFormat.IPV4_ONLY).build()),
                        "keyFormat: "));
    }

    static CountMinSketch cms(int width, int depth, long seed, boolean conservative) {
        return CountMinSketch.withShape(width, depth, seed, RowIndexing.FULL_WIDTH, conservative);
    }

    static BlockedCountMinSketch bcms(int blocks, long seed) {
        return BlockedCountMinSketch.withBlocks(blocks, seed);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("incompatibleChanges")
    <T> void sameShapeIsCompatibleAsIsAndChangeIsIncompatibleNamingTheField(String name, TypeSerializer<T> old,
                                                                           TypeSerializer<T> now, String diff)
            throws IOException {
        TypeSerializerSnapshot<T> oldSnapshot = roundTrip(old.snapshotConfiguration());
        TypeSerializerSnapshot<T> sameSnapshot = roundTrip(old.snapshotConfiguration());
        TypeSerializerSnapshot<T> newSnapshot = roundTrip(now.snapshotConfiguration());

        assertThat(sameSnapshot.resolveSchemaCompatibility(oldSnapshot).isCompatibleAsIs()).isTrue();
        assertThat(((ImageSerializerSnapshot<T>) sameSnapshot).incompatibilityFrom(oldSnapshot)).isEmpty();
        assertThat(sameSnapshot.restoreSerializer()).isEqualTo(old);

        TypeSerializerSchemaCompatibility<T> c = newSnapshot.resolveSchemaCompatibility(oldSnapshot);
        assertThat(c.isIncompatible()).isTrue();
        assertThat(((ImageSerializerSnapshot<T>) newSnapshot).incompatibilityFrom(oldSnapshot)).contains(diff);
    }

    @Test
    void unspecifiedShapeOnEitherSideIsCompatibleAsIs() throws IOException {
        TypeSerializerSnapshot<CountMinSketch> unspecified =
                roundTrip(CountMinSketchSerializer.INSTANCE.snapshotConfiguration());
        TypeSerializerSnapshot<CountMinSketch> specified =
                roundTrip(CountMinSketchSerializer.expecting(cms(2048, 4, 1, false)).snapshotConfiguration());
        assertThat(unspecified.resolveSchemaCompatibility(specified).isCompatibleAsIs()).isTrue();
        assertThat(specified.resolveSchemaCompatibility(unspecified).isCompatibleAsIs()).isTrue();
        TypeSerializer<CountMinSketch> restored = unspecified.restoreSerializer();
        assertThat(restored.duplicate()).isSameAs(restored);
        assertThat(unspecified.restoreSerializer()).isEqualTo(CountMinSketchSerializer.INSTANCE);
    }

    /** The shape an operator builds from its configuration is the shape of a sketch built from it. */
    @Test
    void aCountMinShapeWithoutASketchEqualsTheSketchesShapeAndTypeInfoCarriesIt() {
        for (RowIndexing indexing : RowIndexing.values()) {
            for (boolean conservative : new boolean[] {false, true}) {
                CountMinSketch sketch = CountMinSketch.withShape(2053, 5, -17, indexing, conservative);
                assertThat(Shapes.countMin(2053, 5, -17, indexing, conservative)).isEqualTo(Shapes.of(sketch));
            }
        }
        Shape shape = Shapes.of(cms(2048, 4, 1, false));
        CountMinSketchTypeInfo typed = new CountMinSketchTypeInfo(shape);
        assertThat(((CountMinSketchSerializer) typed.createSerializer(null)).expectedShape()).isEqualTo(shape);
        assertThat(new CountMinSketchTypeInfo().createSerializer(null)).isSameAs(CountMinSketchSerializer.INSTANCE);
        assertThat(typed).isEqualTo(new CountMinSketchTypeInfo(Shapes.of(cms(2048, 4, 1, false))))
                .hasSameHashCodeAs(new CountMinSketchTypeInfo(Shapes.of(cms(2048, 4, 1, false))))
                .isNotEqualTo(new CountMinSketchTypeInfo(Shapes.of(cms(2048, 4, 2, false))))
                .isNotEqualTo(new CountMinSketchTypeInfo());
    }

    @Test
    void changedHintIsHarmless() throws IOException {
        StandardBloomFilter f = StandardBloomFilter.withBits(4096, 5, 1);
        var old = roundTrip(new StandardBloomFilterSerializer(Shapes.of(f).withHint("expectedItems", 1000))
                .snapshotConfiguration());
        var now = roundTrip(new StandardBloomFilterSerializer(Shapes.of(f).withHint("expectedItems", 2000))
                .snapshotConfiguration());
        assertThat(now.resolveSchemaCompatibility(old).isCompatibleAsIs()).isTrue();
        assertThat(((ImageSerializerSnapshot<StandardBloomFilter>) now).incompatibilityFrom(old)).isEmpty();
        assertThat(((ImageSerializerSnapshot<StandardBloomFilter>) now).shape()
                .differencesFrom(((ImageSerializerSnapshot<StandardBloomFilter>) old).shape(), true))
                .containsExactly("expectedItems: 1000 -> 2000 (hint)");
    }

    @Test
    void aHintCannotTakeOverAShapeField() {
        Shape w4096 = Shapes.of(cms(4096, 4, 1, false));
        assertThatThrownBy(() -> w4096.withHint("width", 4096)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("hint name width is already a shape field");
        assertThatThrownBy(() -> Shape.builder().field("bits", 1).hint("bits", 2))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("bits");
        // a hint may be set again, and a field may still replace a hint
        Shape s = Shape.builder().hint("expectedItems", 1).hint("expectedItems", 2).field("expectedItems", 3).build();
        assertThat(s.fields()).containsEntry("expectedItems", "3");
        assertThat(s.hints()).isEmpty();
    }

    /** A snapshot in the version-1 format, each entry {name, value, "hint" or "field"}. */
    private static Shape snapshotShape(String[]... entries) throws IOException {
        DataOutputSerializer out = new DataOutputSerializer(64);
        out.writeInt(entries.length);
        for (String[] e : entries) {
            out.writeUTF(e[0]);
            out.writeUTF(e[1]);
            out.writeBoolean(e[2].equals("hint"));
        }
        return Shape.read(new DataInputDeserializer(out.getCopyOfBuffer()));
    }

    @Test
    void aNameIsAHintOnlyIfEverySideThatHasItMarksItAHint() throws IOException {
        // the snapshot of an older version whose operator marked the width a hint (its builder allowed that):
        // restoring it into a 4096-wide sketch is incompatible, not hidden as a harmless hint
        Shape oldState = snapshotShape(new String[] {"width", "2048", "hint"}, new String[] {"depth", "4", "field"},
                new String[] {"seed", "1", "field"}, new String[] {"indexing", "FULL_WIDTH", "field"},
                new String[] {"conservative", "false", "field"});
        var old = roundTrip(new CountMinSketchSerializer(oldState).snapshotConfiguration());
        var now = roundTrip(CountMinSketchSerializer.expecting(cms(4096, 4, 1, false)).snapshotConfiguration());
        assertThat(now.resolveSchemaCompatibility(old).isIncompatible()).isTrue();
        assertThat(((ImageSerializerSnapshot<CountMinSketch>) now).incompatibilityFrom(old))
                .isEqualTo("width: 2048 -> 4096");
        // and the other way round
        assertThat(oldState.differencesFrom(Shapes.of(cms(4096, 4, 1, false)), false))
                .containsExactly("width: 4096 -> 2048");
        // a hint added since the snapshot (absent there) or dropped since stays harmless
        Shape plain = Shapes.of(cms(4096, 4, 1, false));
        Shape hinted = plain.withHint("epsilon", 0.001);
        assertThat(hinted.differencesFrom(plain, false)).isEmpty();
        assertThat(plain.differencesFrom(hinted, false)).isEmpty();
        assertThat(hinted.differencesFrom(plain, true)).containsExactly("epsilon: (absent) -> 0.001 (hint)");
    }

    @Test
    void aSnapshotRepeatingAFieldNameIsCorrupt() {
        assertThatThrownBy(() -> snapshotShape(new String[] {"width", "2048", "field"},
                new String[] {"width", "4096", "hint"})).isInstanceOf(IOException.class)
                .hasMessage("serializer snapshot corrupt: shape field width repeated");
    }

    @Test
    void aSnapshotWithAnOverlongNameOrValueIsCorruptNotAnIllegalArgument() {
        String overlong = "9".repeat(Shape.MAX_TEXT_CHARS + 1);
        assertThatThrownBy(() -> snapshotShape(new String[] {"width", overlong, "field"}))
                .isInstanceOf(IOException.class)
                .hasMessage("serializer snapshot corrupt: shape field width longer than 4096 characters");
        assertThatThrownBy(() -> snapshotShape(new String[] {overlong, "1", "hint"}))
                .isInstanceOf(IOException.class)
                .hasMessage("serializer snapshot corrupt: shape field name longer than 4096 characters");
        // the limit itself is allowed
        assertThatCode(() -> snapshotShape(new String[] {"width", overlong.substring(1), "field"}))
                .doesNotThrowAnyException();
        // a name of the limit length is named, only a longer one is not
        String longestName = "n".repeat(Shape.MAX_TEXT_CHARS);
        assertThatThrownBy(() -> snapshotShape(new String[] {longestName, overlong, "field"}))
                .isInstanceOf(IOException.class)
                .hasMessage("serializer snapshot corrupt: shape field " + longestName + " longer than 4096 characters");
    }

    @Test
    void aSnapshotMayHoldUpToMaxFieldsAndNamesOfTheLimitLength() throws IOException {
        String[][] full = new String[Shape.MAX_FIELDS][];
        for (int i = 0; i < full.length; i++) {
            full[i] = new String[] {"f" + i, Integer.toString(i), i % 2 == 0 ? "field" : "hint"};
        }
        Shape read = snapshotShape(full);
        assertThat(read.fields()).hasSize(Shape.MAX_FIELDS);
        assertThat(read.hints()).hasSize(Shape.MAX_FIELDS / 2).contains("f1").doesNotContain("f0");
        String[][] tooMany = Arrays.copyOf(full, Shape.MAX_FIELDS + 1);
        tooMany[Shape.MAX_FIELDS] = new String[] {"extra", "1", "field"};
        assertThatThrownBy(() -> snapshotShape(tooMany)).isInstanceOf(IOException.class)
                .hasMessage("serializer snapshot corrupt: shape field count 257 outside [0, 256]");
        String longest = "n".repeat(Shape.MAX_TEXT_CHARS);
        assertThat(snapshotShape(new String[] {longest, "1", "field"}).fields()).containsEntry(longest, "1");
        // and no field at all: an empty shape is a shape (count 0 is inside [0, 256])
        assertThat(snapshotShape().fields()).isEmpty();
        assertThat(snapshotShape()).isEqualTo(Shape.builder().build());
    }

    @Test
    void aBuilderHoldsUpToMaxFieldsAndMayStillReplaceOneWhenFull() {
        Shape.Builder b = Shape.builder();
        for (int i = 0; i < Shape.MAX_FIELDS; i++) {
            if (i == 1) {
                b.hint("f" + i, i);
            } else {
                b.field("f" + i, i);
            }
        }
        b.field("f0", "replaced").hint("f1", "replaced too");
        assertThatThrownBy(() -> b.field("extra", 1)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("more than 256 shape fields");
        Shape s = b.build();
        assertThat(s.fields()).hasSize(Shape.MAX_FIELDS).containsEntry("f0", "replaced");
        assertThat(s.hints()).containsExactly("f1");
        String longest = "v".repeat(Shape.MAX_TEXT_CHARS);
        assertThat(Shape.builder().field(longest, longest).build().fields()).containsEntry(longest, longest);
        assertThatThrownBy(() -> Shape.builder().field("width", longest + "v"))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void anIncompatibilityFromNoSnapshotNamesBothSides() {
        ImageSerializerSnapshot<CountMinSketch> now =
                (ImageSerializerSnapshot<CountMinSketch>) CountMinSketchSerializer.INSTANCE.snapshotConfiguration();
        assertThat(now.incompatibilityFrom(null)).isEqualTo("structure: null -> " + now.getClass().getName());
    }

    @Test
    @SuppressWarnings({"unchecked", "rawtypes"})
    void snapshotOfAnotherStructureIsIncompatible() throws IOException {
        TypeSerializerSnapshot old = roundTrip(SpaceSavingSerializer.INSTANCE.snapshotConfiguration());
        TypeSerializerSnapshot now = roundTrip(CountMinSketchSerializer.INSTANCE.snapshotConfiguration());
        assertThat(now.resolveSchemaCompatibility(old).isIncompatible()).isTrue();
        assertThat(((ImageSerializerSnapshot) now).incompatibilityFrom(old)).startsWith("structure: ");
        // the blocked and the row-major Count-Min do not read each other's state, though both record a seed
        TypeSerializerSnapshot blocked =
                roundTrip(BlockedCountMinSketchSerializer.INSTANCE.snapshotConfiguration());
        assertThat(now.resolveSchemaCompatibility(blocked).isIncompatible()).isTrue();
        assertThat(blocked.resolveSchemaCompatibility(now).isIncompatible()).isTrue();
    }

    static <T> TypeSerializerSnapshot<T> roundTrip(TypeSerializerSnapshot<T> snapshot) throws IOException {
        DataOutputSerializer out = new DataOutputSerializer(64);
        TypeSerializerSnapshot.writeVersionedSnapshot(out, snapshot);
        DataInputDeserializer in = new DataInputDeserializer(out.getCopyOfBuffer());
        TypeSerializerSnapshot<T> read =
                TypeSerializerSnapshot.readVersionedSnapshot(in, SnapshotCompatibilityTest.class.getClassLoader());
        assertThat(read).isInstanceOf(snapshot.getClass());
        assertThat(((ImageSerializerSnapshot<T>) read).shape()).isEqualTo(((ImageSerializerSnapshot<T>) snapshot).shape());
        return read;
    }
}
