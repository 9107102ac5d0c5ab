package io.linerate.sketches.flowtable;

/** {@link SlotItems} behind a table, counting the occupant hashes and the moves the table asks for. */
final class CountingOccupants implements Occupants {

    final SlotItems items;
    long hashes;
    long moves;

    CountingOccupants(SlotItems items) {
        this.items = items;
    }

    @Override
    public long hashOf(int slot) {
        hashes++;
        return items.hashOf(slot);
    }

    @Override
    public void move(int from, int to) {
        moves++;
        items.move(from, to);
    }
}
