package io.linerate.flink.heavyhitters;

import io.linerate.flink.items.ElementsOf;
import java.util.function.Consumer;
import org.apache.flink.api.common.typeinfo.TypeInformation;

/**
 * The keyed heavy-hitters operator over single records: a {@link HeavyHittersBatchOperator} whose every record is a
 * batch of one element (itself), so single records and batches run the same per-element code. Per record: at most
 * one state read, one tracker update (the selector hashes the item once), one state write (on RocksDB, while the
 * key's ring is in the operator's state cache, neither); no allocation beyond the user's selectors.
 */
public final class HeavyHittersOperator<T, K> extends HeavyHittersBatchOperator<T, T, K> {

    private static final long serialVersionUID = 1L;

    HeavyHittersOperator(HeavyHitterDetector<T, K> spec, TypeInformation<T> inputType, TypeInformation<K> keyType) {
        super(spec, new Itself<>(), null, inputType, keyType);
    }

    /** The elements of a single record: the record itself. */
    static final class Itself<T> implements ElementsOf<T, T> {
        private static final long serialVersionUID = 1L;

        @Override
        public void forEach(T record, Consumer<? super T> each) {
            each.accept(record);
        }
    }
}
