package io.linerate.sketches.flowtable;

/** What a {@link MultilevelTable} needs from the storage that holds the items in its slots. */
interface Occupants {

    /** h1 of the item in {@code slot} (its h2 is {@link io.linerate.sketches.hash.ItemHasher#h2}(h1)). */
    long hashOf(int slot);

    /** Copies the item in slot {@code from} to slot {@code to}; the table then treats {@code from} as free. */
    void move(int from, int to);
}
