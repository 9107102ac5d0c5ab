package io.linerate.flink.serializers;

import io.linerate.sketches.bloom.BalancedBloomFilter;
import io.linerate.sketches.bloom.BlockedBloomFilter;
import io.linerate.sketches.frequency.BlockedCountMinSketch;
import io.linerate.sketches.frequency.CountMinHeap;
import io.linerate.sketches.frequency.CountMinSketch;
import io.linerate.sketches.bloom.CountingBloomFilter;
import io.linerate.sketches.flowtable.FlowTable;
import io.linerate.sketches.bloom.PartitionedBloomFilter;
import io.linerate.sketches.frequency.SpaceSaving;
import io.linerate.sketches.bloom.SplitBlockBloomFilter;
import io.linerate.sketches.bloom.StandardBloomFilter;

/** The Kryo 5 serializers, one per structure; registered by {@link LinerateTypes#registerKryo}. */
public final class KryoSerializers {

    private KryoSerializers() {
    }

    /** Kryo serializer of {@link StandardBloomFilter}. */
    public static final class StandardBloomFilterKryo extends ImageKryoSerializer<StandardBloomFilter> {
        private static final long serialVersionUID = 1L;

        public StandardBloomFilterKryo() {
            super(StandardBloomFilterSerializer.INSTANCE);
        }
    }

    /** Kryo serializer of {@link PartitionedBloomFilter}. */
    public static final class PartitionedBloomFilterKryo extends ImageKryoSerializer<PartitionedBloomFilter> {
        private static final long serialVersionUID = 1L;

        public PartitionedBloomFilterKryo() {
            super(PartitionedBloomFilterSerializer.INSTANCE);
        }
    }

    /** Kryo serializer of {@link BlockedBloomFilter}. */
    public static final class BlockedBloomFilterKryo extends ImageKryoSerializer<BlockedBloomFilter> {
        private static final long serialVersionUID = 1L;

        public BlockedBloomFilterKryo() {
            super(BlockedBloomFilterSerializer.INSTANCE);
        }
    }

    /** Kryo serializer of {@link SplitBlockBloomFilter}. */
    public static final class SplitBlockBloomFilterKryo extends ImageKryoSerializer<SplitBlockBloomFilter> {
        private static final long serialVersionUID = 1L;

        public SplitBlockBloomFilterKryo() {
            super(SplitBlockBloomFilterSerializer.INSTANCE);
        }
    }

    /** Kryo serializer of {@link BalancedBloomFilter}. */
    public static final class BalancedBloomFilterKryo extends ImageKryoSerializer<BalancedBloomFilter> {
        private static final long serialVersionUID = 1L;

        public BalancedBloomFilterKryo() {
            super(BalancedBloomFilterSerializer.INSTANCE);
        }
    }

    /** Kryo serializer of {@link CountingBloomFilter}. */
    public static final class CountingBloomFilterKryo extends ImageKryoSerializer<CountingBloomFilter> {
        private static final long serialVersionUID = 1L;

        public CountingBloomFilterKryo() {
            super(CountingBloomFilterSerializer.INSTANCE);
        }
    }

    /** Kryo serializer of {@link CountMinSketch}. */
    public static final class CountMinSketchKryo extends ImageKryoSerializer<CountMinSketch> {
        private static final long serialVersionUID = 1L;

        public CountMinSketchKryo() {
            super(CountMinSketchSerializer.INSTANCE);
        }
    }

    /** Kryo serializer of {@link BlockedCountMinSketch}. */
    public static final class BlockedCountMinSketchKryo extends ImageKryoSerializer<BlockedCountMinSketch> {
        private static final long serialVersionUID = 1L;

        public BlockedCountMinSketchKryo() {
            super(BlockedCountMinSketchSerializer.INSTANCE);
        }
    }

    /** Kryo serializer of {@link SpaceSaving}. */
    public static final class SpaceSavingKryo extends ImageKryoSerializer<SpaceSaving> {
        private static final long serialVersionUID = 1L;

        public SpaceSavingKryo() {
            super(SpaceSavingSerializer.INSTANCE);
        }
    }

    /** Kryo serializer of {@link CountMinHeap}. */
    public static final class CountMinHeapKryo extends ImageKryoSerializer<CountMinHeap> {
        private static final long serialVersionUID = 1L;

        public CountMinHeapKryo() {
            super(CountMinHeapSerializer.INSTANCE);
        }
    }

    /** Kryo serializer of {@link FlowTable}. */
    public static final class FlowTableKryo extends ImageKryoSerializer<FlowTable> {
        private static final long serialVersionUID = 1L;

        public FlowTableKryo() {
            super(FlowTableSerializer.INSTANCE);
        }
    }
}
