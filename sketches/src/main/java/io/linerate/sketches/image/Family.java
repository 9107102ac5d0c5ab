package io.linerate.sketches.image;

/** Which structure a byte image holds. Ids are part of the binary format and never reused. */
public enum Family {
    STANDARD_BLOOM(1),
    PARTITIONED_BLOOM(2),
    BLOCKED_BLOOM(3),
    BALANCED_BLOOM(4),
    COUNTING_BLOOM(5),
    COUNT_MIN(6),
    SPACE_SAVING(7),
    COUNT_MIN_HEAP(8),
    FLOW_TABLE(9),
    SPLIT_BLOCK_BLOOM(10),
    BLOCKED_COUNT_MIN(11);

    private final int id;

    Family(int id) {
        this.id = id;
    }

    public int id() {
        return id;
    }

    /** The family with this id, or {@code null}. */
    public static Family ofId(int id) {
        for (Family f : values()) {
            if (f.id == id) {
                return f;
            }
        }
        return null;
    }
}
