package io.linerate.sketches.image;

import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.zip.CRC32C;

/**
 * The hostile-bytes harness shared by {@link ImageFuzzTargets} (Jazzer) and {@link ImageMutationTest} (a seeded
 * deterministic generator): turns arbitrary "fuzzer bytes" into a candidate image of one family and checks the
 * reader's contract on it.
 *
 * <p><b>From fuzzer bytes to an image.</b> A CRC32C guards every image, so raw mutations almost never get past
 * the checksum. The first byte therefore picks a mode:
 * <ul>
 *   <li>{@code % 8 == 0}: the remaining bytes are the image, as they are (exercises magic/family/length/CRC);</li>
 *   <li>otherwise a committed v1 image of the family (picked by the second byte) is mutated by commands read from
 *       the rest: truncation, extension, byte/int/long overwrites (random values and edge values such as -1,
 *       {@code Integer.MAX_VALUE}, 2^31, 2^40), "length inflation" that writes a huge value at an aligned
 *       offset, insertion and deletion of bytes; then, unless the mode is 1, magic and family are restored and
 *       the CRC32C trailer recomputed, so the field validation behind the checksum is what gets tested (for a
 *       CM-heap, unless the mode is 2, that of the embedded Count-Min image too).</li>
 * </ul>
 *
 * <p><b>The contract.</b> Reading either returns a structure, whose image must read back and re-serialize to the
 * same bytes, or throws {@link IllegalArgumentException} with a non-empty message. Anything else (NPE, index
 * out of bounds, negative array size, arithmetic, {@link OutOfMemoryError}, …) is a finding. The streamed reader
 * ({@code readImage(source, length)}, through a buffer of a few bytes) must do exactly what the array reader does:
 * the same message, or a structure with the same image, and take exactly the image's bytes from its source.
 *
 * <p><b>The allocation bound.</b> Measured per read with {@code com.sun.management.ThreadMXBean}: at most
 * {@value #BYTES_PER_IMAGE_BYTE} bytes per image byte plus {@value #SLACK_BYTES} bytes. A valid image is its
 * structure's arrays written out, so a read needs about 1× its length for those arrays plus the input-sized
 * scratch the reader copies (the counting filter and the trackers expand packed cells or keys into wider
 * objects, well under 64×); the slack covers fixed-size objects, exception messages and stack traces. A length
 * field claiming gigabytes must therefore fail before allocating. The trackers are held to the same bound: a
 * Space-Saving or CM-heap image holds only its monitored entries while its capacity field may declare up to
 * {@code SpaceSaving.MAX_CAPACITY} = 2²⁶ counters, and the reader allocates counters for the entries (at least
 * {@code MonitoredItems.INITIAL_SLOTS}), not for the declared capacity. The flow table alone is allowed more: its
 * entry array is allocated from the slot-state bytes, one state byte per slot and up to (8·entryLongs + 1) bytes
 * per slot (entryLongs ≤ 5 key + 4 counter + {@value io.linerate.sketches.flowtable.FlowTable#MAX_USER_SLOTS}
 * user longs = 25, i.e. 201 bytes per image byte), as {@code FlowTable.fromByteArray} documents.
 */
final class HostileImages {

    static final long BYTES_PER_IMAGE_BYTE = 64;
    static final long FLOW_TABLE_BYTES_PER_IMAGE_BYTE = 8L * (5 + 4 + io.linerate.sketches.flowtable.FlowTable.MAX_USER_SLOTS) + 1;
    /**
     * The Balanced filter's overflow list is allocated at its capacity, which may be up to 2 bits·blocks + 16
     * entries ({@code BalancedParameters}); its open-addressing table takes at most 128/3·capacity + 32 bytes and the
     * words it is tied to come from the image, so ≤ 683 bytes per image byte on top of the general bound.
     */
    static final long BALANCED_BYTES_PER_IMAGE_BYTE = BYTES_PER_IMAGE_BYTE + 683 + 3;
    static final long SLACK_BYTES = 4L << 20;

    private static final Map<Family, List<ImageRecipes.Recipe<?>>> RECIPES = new EnumMap<>(Family.class);
    private static final Map<Family, List<byte[]>> SEEDS = new EnumMap<>(Family.class);

    static {
        for (ImageRecipes.Recipe<?> r : ImageRecipes.all().values()) {
            RECIPES.computeIfAbsent(r.family, f -> new ArrayList<>()).add(r);
            SEEDS.computeIfAbsent(r.family, f -> new ArrayList<>()).add(ImageUpgradeTest.committed(r));
        }
        // warm up: class loading and initialization allocate on the reading thread the first time; that must not
        // count against the first input's allocation bound
        for (ImageRecipes.Recipe<?> r : ImageRecipes.all().values()) {
            warmUp(r);
        }
    }

    private static <T> void warmUp(ImageRecipes.Recipe<T> r) {
        byte[] image = ImageUpgradeTest.committed(r);
        r.write.apply(r.read.apply(image.clone()));
        StreamedReads.read(r.family, new StreamedReads.ArraySource(image, 16), image.length);
        byte[] bad = image.clone();
        bad[bad.length - 1] ^= 1;
        try {
            r.read.apply(bad);
        } catch (IllegalArgumentException expected) {
            // the exception path's classes are loaded now too
        }
        bad[8] ^= 1; // a field too, so the streamed read rejects it before the checksum and then verifies that
        try {
            StreamedReads.read(r.family, new StreamedReads.ArraySource(bad, 16), bad.length);
        } catch (IllegalArgumentException expected) {
            // likewise
        }
    }

    private static final com.sun.management.ThreadMXBean THREADS =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

    private static final long[] EDGE_INTS = {0, 1, -1, 2, 255, 256, 65535, 0x7FFF_FFFFL, 0x8000_0000L,
            0x7FFF_FFF8L, 0x1000_0000L, 0x4000_0000L, 0x0FFF_FFFFL};
    private static final long[] EDGE_LONGS = {0, 1, -1, Long.MAX_VALUE, Long.MIN_VALUE, 1L << 31, 1L << 32,
            1L << 40, 1L << 62, 0x7FFF_FFFFL, 0x8000_0000L};

    /** What one input did, for the tests' statistics. */
    enum Outcome { READ, REJECTED_BEFORE_CHECKSUM, REJECTED_AFTER_CHECKSUM }

    private HostileImages() {
    }

    static int seedCount(Family family) {
        return SEEDS.get(family).size();
    }

    static byte[] seed(Family family, int index) {
        return SEEDS.get(family).get(index).clone();
    }

    /** Turns fuzzer bytes into a candidate image of {@code family} (see the class comment). */
    static byte[] image(Family family, byte[] data) {
        if (data.length == 0) {
            return seed(family, 0);
        }
        int mode = (data[0] & 0xFF) % 8;
        if (mode == 0) {
            return Arrays.copyOfRange(data, 1, data.length);
        }
        Commands c = new Commands(data, 1);
        List<byte[]> seeds = SEEDS.get(family);
        byte[] img = seeds.get(c.nextByte() % seeds.size()).clone();
        int mutations = 1 + c.nextByte() % 4;
        for (int i = 0; i < mutations && c.hasMore(); i++) {
            img = mutate(img, c);
        }
        if (mode != 1) {
            if (family == Family.COUNT_MIN_HEAP && mode != 2) {
                fixUpEmbeddedSketch(img);
            }
            img = fixUp(img, family);
        }
        return img;
    }

    private static byte[] mutate(byte[] img, Commands c) {
        int op = c.nextByte() % 9;
        int len = img.length;
        switch (op) {
            case 0: // truncate
                return Arrays.copyOf(img, len == 0 ? 0 : c.nextInt() % (len + 1));
            case 1: // extend with garbage
            {
                int extra = 1 + c.nextByte() % 64;
                byte[] out = Arrays.copyOf(img, len + extra);
                for (int i = len; i < out.length; i++) {
                    out[i] = (byte) c.nextByte();
                }
                return out;
            }
            case 2: // byte overwrite
                if (len > 0) {
                    img[c.nextInt() % len] = (byte) c.nextByte();
                }
                return img;
            case 3: // bit flip
                if (len > 0) {
                    img[c.nextInt() % len] ^= (byte) (1 << (c.nextByte() % 8));
                }
                return img;
            case 4: // int overwrite, random or edge value, at any offset
                if (len >= 4) {
                    int at = c.nextInt() % (len - 3);
                    long v = (c.nextByte() & 1) == 0 ? c.nextIntValue() : EDGE_INTS[c.nextByte() % EDGE_INTS.length];
                    le(img).putInt(at, (int) v);
                }
                return img;
            case 5: // long overwrite
                if (len >= 8) {
                    int at = c.nextInt() % (len - 7);
                    long v = (c.nextByte() & 1) == 0 ? c.nextLongValue() : EDGE_LONGS[c.nextByte() % EDGE_LONGS.length];
                    le(img).putLong(at, v);
                }
                return img;
            case 6: // length-field inflation: a huge int at a 4-aligned offset in the first 128 bytes of fields
                if (len >= 12) {
                    int slots = Math.min(32, (len - 8) / 4);
                    int at = 8 + 4 * (c.nextByte() % slots);
                    long[] huge = {0x7FFF_FFFFL, 0x4000_0000L, 0x1000_0000L, 0x8000_0000L, 0x0800_0000L, 0xFFFF_FFFFL};
                    le(img).putInt(at, (int) huge[c.nextByte() % huge.length]);
                }
                return img;
            case 7: // insert bytes
            {
                int at = c.nextInt() % (len + 1);
                int n = 1 + c.nextByte() % 16;
                byte[] out = new byte[len + n];
                System.arraycopy(img, 0, out, 0, at);
                for (int i = 0; i < n; i++) {
                    out[at + i] = (byte) c.nextByte();
                }
                System.arraycopy(img, at, out, at + n, len - at);
                return out;
            }
            default: // delete bytes
            {
                if (len == 0) {
                    return img;
                }
                int at = c.nextInt() % len;
                int n = Math.min(len - at, 1 + c.nextByte() % 16);
                byte[] out = new byte[len - n];
                System.arraycopy(img, 0, out, 0, at);
                System.arraycopy(img, at + n, out, at, len - at - n);
                return out;
            }
        }
    }

    /** Restores magic and family id and recomputes the CRC32C trailer, when the image is long enough for them. */
    static byte[] fixUp(byte[] img, Family family) {
        if (img.length < ImageWriter.PREAMBLE_BYTES + ImageWriter.TRAILER_BYTES) {
            return img;
        }
        ByteBuffer b = le(img);
        b.putInt(0, ImageWriter.MAGIC);
        img[4] = (byte) family.id();
        int bodyEnd = img.length - ImageWriter.TRAILER_BYTES;
        CRC32C crc = new CRC32C();
        crc.update(img, 0, bodyEnd);
        b.putInt(bodyEnd, (int) crc.getValue());
        return img;
    }

    /**
     * A CM-heap image embeds a whole Count-Min image (its length at offset 28, its bytes from offset 32) with a
     * checksum of its own: fix that one up too, when the declared length lies within the image.
     */
    private static void fixUpEmbeddedSketch(byte[] img) {
        if (img.length < 32 + ImageWriter.TRAILER_BYTES) {
            return;
        }
        int length = le(img).getInt(28);
        if (length < ImageWriter.PREAMBLE_BYTES + ImageWriter.TRAILER_BYTES
                || length > img.length - 32 - ImageWriter.TRAILER_BYTES) {
            return;
        }
        byte[] inner = fixUp(Arrays.copyOfRange(img, 32, 32 + length), Family.COUNT_MIN);
        System.arraycopy(inner, 0, img, 32, length);
    }

    /**
     * Checks the reader's contract on one candidate image of {@code family}, with every reader of that family
     * (the families' recipes share their reader).
     *
     * @throws AssertionError for a finding
     */
    static Outcome check(Family family, byte[] image) {
        ImageRecipes.Recipe<?> recipe = RECIPES.get(family).get(0);
        return check(recipe, image);
    }

    private static <T> Outcome check(ImageRecipes.Recipe<T> recipe, byte[] image) {
        byte[] copy = image.clone();
        long perByte = recipe.family == Family.FLOW_TABLE ? FLOW_TABLE_BYTES_PER_IMAGE_BYTE
                : recipe.family == Family.BALANCED_BLOOM ? BALANCED_BYTES_PER_IMAGE_BYTE : BYTES_PER_IMAGE_BYTE;
        long limit = perByte * image.length + SLACK_BYTES;
        long thread = Thread.currentThread().getId();
        long before = THREADS.getThreadAllocatedBytes(thread);
        T read;
        try {
            read = recipe.read.apply(copy);
        } catch (IllegalArgumentException e) {
            long allocated = THREADS.getThreadAllocatedBytes(thread) - before;
            checkAllocation(recipe, image, allocated, limit, "reading");
            if (e.getMessage() == null || e.getMessage().isBlank()) {
                throw new AssertionError(recipe.family + ": rejected without a message " + describe(image), e);
            }
            checkStreamed(recipe, image, limit, e.getMessage(), null);
            return e.getMessage().startsWith("image corrupt: CRC32C") || e.getMessage().startsWith("not a linerate")
                    || e.getMessage().startsWith("unknown image family") || e.getMessage().startsWith("image holds a")
                    || e.getMessage().startsWith("image truncated: " + image.length)
                    ? Outcome.REJECTED_BEFORE_CHECKSUM : Outcome.REJECTED_AFTER_CHECKSUM;
        } catch (RuntimeException | Error e) {
            if (e instanceof AssertionError) {
                throw e;
            }
            throw new AssertionError(recipe.family + ": " + e + " instead of IllegalArgumentException "
                    + describe(image), e);
        }
        long allocated = THREADS.getThreadAllocatedBytes(thread) - before;
        checkAllocation(recipe, image, allocated, limit, "reading");
        byte[] written = recipe.write.apply(read);
        checkStreamed(recipe, image, limit, null, written);
        byte[] again;
        try {
            again = recipe.write.apply(recipe.read.apply(written.clone()));
        } catch (RuntimeException e) {
            throw new AssertionError(recipe.family + ": the image of an accepted input does not read back "
                    + describe(image), e);
        }
        if (!Arrays.equals(written, again)) {
            throw new AssertionError(recipe.family + ": an accepted input's image reads back to different bytes "
                    + describe(image));
        }
        return Outcome.READ;
    }

    /**
     * The streamed reader ({@code readImage(source, length)}) on the same bytes, through a buffer of 16 to 30 bytes
     * so that field and chunk boundaries cross: it must reject with the array mode's message ({@code rejection}),
     * or read a structure with the same image ({@code accepted}), take exactly the image's bytes from the source,
     * and stay within the same allocation bound.
     */
    @SuppressWarnings("unchecked")
    private static <T> void checkStreamed(ImageRecipes.Recipe<T> recipe, byte[] image, long limit, String rejection,
                                          byte[] accepted) {
        StreamedReads.ArraySource source = new StreamedReads.ArraySource(image.clone(), 16 + 7 * (image.length % 3));
        long thread = Thread.currentThread().getId();
        long before = THREADS.getThreadAllocatedBytes(thread);
        Object read;
        try {
            read = StreamedReads.read(recipe.family, source, image.length);
        } catch (IllegalArgumentException e) {
            checkAllocation(recipe, image, THREADS.getThreadAllocatedBytes(thread) - before, limit, "the streamed read");
            if (rejection == null || !rejection.equals(e.getMessage())) {
                throw new AssertionError(recipe.family + ": the streamed read rejected with \"" + e.getMessage()
                        + "\", the array read " + (rejection == null ? "accepted" : "said \"" + rejection + "\"")
                        + " " + describe(image), e);
            }
            checkTaken(recipe, image, source);
            return;
        } catch (RuntimeException | Error e) {
            throw new AssertionError(recipe.family + ": the streamed read threw " + e
                    + " instead of IllegalArgumentException " + describe(image), e);
        }
        checkAllocation(recipe, image, THREADS.getThreadAllocatedBytes(thread) - before, limit, "the streamed read");
        if (rejection != null) {
            throw new AssertionError(recipe.family + ": the streamed read accepted what the array read rejected with \""
                    + rejection + "\" " + describe(image));
        }
        if (!Arrays.equals(recipe.write.apply((T) read), accepted)) {
            throw new AssertionError(recipe.family + ": the streamed read gives another image than the array read "
                    + describe(image));
        }
        checkTaken(recipe, image, source);
    }

    private static void checkTaken(ImageRecipes.Recipe<?> recipe, byte[] image, StreamedReads.ArraySource source) {
        if (source.position != image.length) {
            throw new AssertionError(recipe.family + ": the streamed read took " + source.position + " of the "
                    + image.length + " bytes " + describe(image));
        }
    }

    private static void checkAllocation(ImageRecipes.Recipe<?> recipe, byte[] image, long allocated, long limit,
                                        String what) {
        if (allocated > limit) {
            throw new AssertionError(recipe.family + ": " + what + " allocated " + allocated + " bytes, limit " + limit
                    + " for " + describe(image));
        }
    }

    static String describe(byte[] image) {
        StringBuilder s = new StringBuilder("image of ").append(image.length).append(" bytes: ");
        int n = Math.min(image.length, 256);
        for (int i = 0; i < n; i++) {
            s.append(String.format(Locale.ROOT, "%02x", image[i]));
        }
        return s.append(n < image.length ? "…" : "").toString();
    }

    private static ByteBuffer le(byte[] img) {
        return ByteBuffer.wrap(img).order(ByteOrder.LITTLE_ENDIAN);
    }

    /** Reads mutation commands from the fuzzer bytes; zeros once they run out. */
    private static final class Commands {
        private final byte[] data;
        private int pos;

        Commands(byte[] data, int pos) {
            this.data = data;
            this.pos = pos;
        }

        boolean hasMore() {
            return pos < data.length;
        }

        int nextByte() {
            return pos < data.length ? data[pos++] & 0xFF : 0;
        }

        /** A non-negative int from up to 3 bytes. */
        int nextInt() {
            return nextByte() | nextByte() << 8 | nextByte() << 16;
        }

        long nextIntValue() {
            return (long) nextByte() | nextByte() << 8 | nextByte() << 16 | (long) nextByte() << 24;
        }

        long nextLongValue() {
            return nextIntValue() & 0xFFFF_FFFFL | nextIntValue() << 32;
        }
    }
}
