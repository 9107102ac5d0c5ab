package io.linerate.flink.serializers;

import io.linerate.sketches.bloom.BalancedBloomFilter;
import io.linerate.sketches.bloom.BalancedParameters;
import io.linerate.sketches.bloom.BlockedBloomFilter;
import io.linerate.sketches.bloom.CountingBloomFilter;
import io.linerate.sketches.bloom.PartitionedBloomFilter;
import io.linerate.sketches.bloom.SplitBlockBloomFilter;
import io.linerate.sketches.bloom.StandardBloomFilter;
import io.linerate.sketches.flowtable.FlowTable;
import io.linerate.sketches.flowtable.TableLayout;
import io.linerate.sketches.frequency.BlockedCountMinSketch;
import io.linerate.sketches.frequency.CountMinHeap;
import io.linerate.sketches.frequency.CountMinSketch;
import io.linerate.sketches.frequency.RowIndexing;
import io.linerate.sketches.frequency.SpaceSaving;
import io.linerate.sketches.image.Family;
import io.linerate.sketches.image.ImageReader;
import java.util.Arrays;

/**
 * The shape of each structure: the fields whose change makes a restore unsound. Where the structure has no
 * accessor for a field (the key kind and seed of the heavy-hitter trackers), the field is read from the leading
 * fields of its image.
 */
public final class Shapes {

    private Shapes() {
    }

    public static Shape of(StandardBloomFilter f) {
        return Shape.builder().field("bits", f.bitSize()).field("hashCount", f.hashCount())
                .field("seed", f.hasher().seed()).field("probing", f.probing()).build();
    }

    public static Shape of(PartitionedBloomFilter f) {
        return Shape.builder().field("bits", f.bitSize()).field("hashCount", f.hashCount())
                .field("seed", f.hasher().seed()).field("partitionBits", f.partitionBits()).build();
    }

    public static Shape of(BlockedBloomFilter f) {
        return Shape.builder().field("bits", f.bitSize()).field("hashCount", f.hashCount())
                .field("seed", f.hasher().seed()).field("blockBits", f.blockBits()).build();
    }

    public static Shape of(SplitBlockBloomFilter f) {
        return Shape.builder().field("bits", f.bitSize()).field("hashCount", f.hashCount())
                .field("seed", f.hasher().seed()).field("blockBits", SplitBlockBloomFilter.BLOCK_BITS).build();
    }

    public static Shape of(BalancedBloomFilter f) {
        BalancedParameters p = f.parameters();
        return Shape.builder().field("bits", f.bitSize()).field("hashCount", f.hashCount())
                .field("seed", f.hasher().seed()).field("blockBits", p.blockBits())
                .field("subtableBlocks", Arrays.toString(p.subtableBlocks())).field("threshold", p.threshold())
                .field("coinProbability", p.coinProbability()).field("designCapacity", p.designCapacity())
                .field("accessBudget", p.accessBudget()).field("overflowCapacity", p.overflowCapacity()).build();
    }

    public static Shape of(CountingBloomFilter f) {
        return Shape.builder().field("counters", f.bitSize()).field("hashCount", f.hashCount())
                .field("counterBits", f.counterBits()).field("seed", f.hasher().seed()).build();
    }

    public static Shape of(CountMinSketch s) {
        return countMin(s.width(), s.depth(), s.hasher().seed(), s.indexing(), s.isConservative());
    }

    /**
     * The shape of a Count-Min sketch of w × d counters, without allocating one: what {@link #of(CountMinSketch)}
     * gives for a sketch built with these values.
     */
    public static Shape countMin(int width, int depth, long seed, RowIndexing indexing, boolean conservative) {
        return Shape.builder().field("width", width).field("depth", depth).field("seed", seed)
                .field("indexing", indexing).field("conservative", conservative).build();
    }

    public static Shape of(BlockedCountMinSketch s) {
        return Shape.builder().field("blocks", s.blocks()).field("seed", s.hasher().seed()).build();
    }

    public static Shape of(SpaceSaving s) {
        ImageReader in = ImageReader.open(s.toByteArray(), Family.SPACE_SAVING, Integer.MAX_VALUE);
        long seed = in.getLong("seed");
        int kind = in.getInt("keyKind");
        int maxBytes = in.getInt("maxBytes");
        return Shape.builder().field("capacity", s.capacity()).field("keyKind", kind)
                .field("maxKeyBytes", maxBytes).field("seed", seed).build();
    }

    public static Shape of(CountMinHeap h) {
        ImageReader in = ImageReader.open(h.toByteArray(), Family.COUNT_MIN_HEAP, Integer.MAX_VALUE);
        int kind = in.getInt("keyKind");
        int maxBytes = in.getInt("maxBytes");
        CountMinSketch s = h.sketch();
        return Shape.builder().field("capacity", h.capacity()).field("keyKind", kind).field("maxKeyBytes", maxBytes)
                .field("width", s.width()).field("depth", s.depth()).field("seed", s.hasher().seed())
                .field("indexing", s.indexing()).field("conservative", s.isConservative()).build();
    }

    public static Shape of(FlowTable t) {
        return of(t.plan());
    }

    /** The shape of a table not built yet (no allocation of its arrays). */
    public static Shape of(FlowTable.Plan p) {
        TableLayout l = p.layout();
        return Shape.builder().field("scheme", p.scheme()).field("levels", l.levels())
                .field("buckets", Arrays.toString(l.buckets())).field("bucketCapacity", l.bucketCapacity())
                .field("stashCapacity", l.stashCapacity()).field("keyFormat", p.keyFormat())
                .field("userSlots", p.userSlots()).field("capacity", p.capacity()).field("seed", p.seed()).build();
    }
}
