package io.linerate.sketches.image;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import java.io.IOException;
import java.io.InputStream;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Upgrade safety: the format-version-1 image of every structure and variant, committed under
 * {@code src/test/resources/images/v1/}, is read by the current code into a structure equal to one built now
 * from the same {@link ImageRecipes recipe}.
 *
 * <p>For each committed file this test checks
 * <ol>
 *   <li>the preamble: magic {@code 'LRSK'}, the recipe's family id, format version 1, reserved 0;</li>
 *   <li>that the current code reads it, and that the structure it reads re-serializes to exactly the bytes of a
 *       freshly built instance (both written by the current code);</li>
 *   <li>while the family's current format version is still 1: that the freshly built instance serializes to
 *       exactly the committed bytes. <b>So a change to a family's byte layout, field order, validation or
 *       hashing that keeps version 1 fails here</b>: the committed bytes are what a released version wrote;</li>
 *   <li>behaviour, not only bytes: membership of every inserted item and agreement on thousands of probes
 *       (Bloom filters), every estimate and counter (Count-Min, blocked Count-Min), top-k and heavy hitters
 *       with their bounds (Space-Saving, CM-heap), every flow record with its counters, user slots and slot
 *       handle, and every table counter (flow tables);</li>
 *   <li>that the restored and the fresh instance stay equal when the stream goes on (same further updates,
 *       equal images afterwards): a restore is a true continuation, not a look-alike. For the heavy-hitter
 *       trackers this rests on the heap order stored in the image: ties at the minimum are broken the same way
 *       after a restore as before it.</li>
 * </ol>
 *
 * <p><b>Changing a format.</b> Bump the family's {@code IMAGE_VERSION}, keep the reader for version 1 (readers
 * accept versions 1..current), add the new layout to {@code docs/STATE-FORMAT.md}, and commit images of the new
 * version next to these (e.g. {@code images/v2/}, with a second generator directory). Check 3 then stops applying
 * to v1 (the current writer no longer writes version 1) while checks 1, 2, 4 and 5 keep proving that v1 images
 * still read into equal structures. A CM-heap image embeds a whole Count-Min image, so a Count-Min bump changes
 * the CM-heap's bytes too and check 3 fails for the CM-heap images until its version is bumped with it (checked:
 * swapping two Count-Min fields under version 1 fails the Count-Min images here; bumping Count-Min alone fails the
 * CM-heap images). <b>Never regenerate or edit the v1 files</b>: they stand for what users have
 * in their checkpoints. Regenerating is a deliberate act with {@link ImageGenerator} (its Javadoc has the
 * command), never part of a test run, and it refuses to overwrite a file whose bytes changed unless told to.
 *
 * <p><b>Errata.</b> A statistic that the code of the committed images counted wrongly and the current code counts
 * right (so far: the flow tables' {@code overflows}, which counted an overflowing flow twice when its eviction
 * victim was in the stash, and their exports by reason, which counted a victim that had already idled out as
 * EVICTED instead of IDLE_TIMEOUT) is declared per recipe as {@link ImageRecipes.Erratum errata}: checks 2, 3 and
 * 5 require the image to hold exactly the declared excess in those fields and compare every other byte. The format is
 * unchanged, and such a fix is no version bump: a v1 image keeps reading, with the value it holds.
 */
class ImageUpgradeTest {

    static final String DIRECTORY = "/images/v1/";

    static Stream<ImageRecipes.Recipe<?>> recipes() {
        return ImageRecipes.all().values().stream();
    }

    @Test
    void everyRecipeHasACommittedImageAndEveryImageARecipe() throws IOException, URISyntaxException {
        URL dir = ImageUpgradeTest.class.getResource(DIRECTORY);
        assertThat(dir).as("test resource directory " + DIRECTORY).isNotNull();
        Set<String> files;
        try (Stream<Path> list = Files.list(Paths.get(dir.toURI()))) {
            files = list.map(p -> p.getFileName().toString()).collect(Collectors.toCollection(TreeSet::new));
        }
        Set<String> expected = recipes().map(ImageRecipes.Recipe::fileName).collect(Collectors.toCollection(TreeSet::new));
        assertThat(files).as("committed images vs recipes").isEqualTo(expected);
        Set<Family> families = recipes().map(r -> r.family).collect(Collectors.toSet());
        assertThat(families).as("every family has a committed image").containsExactlyInAnyOrder(Family.values());
    }

    @Test
    void committedImagesStaySmall() {
        long total = 0;
        for (ImageRecipes.Recipe<?> r : ImageRecipes.all().values()) {
            byte[] image = committed(r);
            assertThat(image.length).as(r.name).isLessThanOrEqualTo(16 * 1024);
            total += image.length;
        }
        assertThat(total).isLessThanOrEqualTo(200 * 1024);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("recipes")
    void committedVersion1ImageReadsIntoAnEqualStructure(ImageRecipes.Recipe<?> recipe) {
        check(recipe);
    }

    private static <T> void check(ImageRecipes.Recipe<T> recipe) {
        byte[] committed = committed(recipe);

        // 1. preamble
        ByteBuffer b = ByteBuffer.wrap(committed).order(ByteOrder.LITTLE_ENDIAN);
        assertThat(b.getInt(0)).as("magic").isEqualTo(ImageWriter.MAGIC);
        assertThat(committed[4] & 0xFF).as("family id").isEqualTo(recipe.family.id());
        assertThat(committed[5] & 0xFF).as("format version").isEqualTo(1);
        assertThat(b.getShort(6)).as("reserved").isZero();
        assertThat(ImageReader.peekFamily(committed)).isEqualTo(recipe.family);

        // 2. read with the current code; equal to a fresh instance, byte for byte
        T read = recipe.read.apply(committed.clone());
        T fresh = recipe.build.get();
        recipe.coverage.accept(fresh);
        byte[] freshImage = recipe.write.apply(fresh);
        assertSameBytes(corrected(recipe, recipe.write.apply(read), freshImage), freshImage,
                recipe.name + ": committed image read and written again");

        // 3. the current writer still writes version 1: it must write exactly the committed bytes
        int currentVersion = freshImage[5] & 0xFF;
        if (currentVersion == 1) {
            assertSameBytes(freshImage, corrected(recipe, committed, freshImage), recipe.name + ": a fresh instance's "
                    + "image (format version 1) vs the committed v1 image. The v1 format or the structure's behaviour "
                    + "changed without a version bump");
        } else {
            assertThat(currentVersion).as("a newer format version").isGreaterThan(1);
        }

        // 4. behaviour
        recipe.sameBehaviour.accept(read, fresh);

        // 5. the stream goes on alike
        recipe.continueStream.accept(read);
        recipe.continueStream.accept(fresh);
        if (recipe.continuedAlike == null) {
            byte[] freshAfter = recipe.write.apply(fresh);
            assertSameBytes(corrected(recipe, recipe.write.apply(read), freshAfter), freshAfter,
                    recipe.name + ": after more updates");
        } else {
            recipe.continuedAlike.accept(read, fresh);
        }
    }

    /**
     * {@code image} (from the committed file, or written by a structure read from it) with the recipe's
     * {@link ImageRecipes.Erratum erratum} field set to {@code fresh}'s value and the checksum recomputed, after
     * checking that it held exactly the erratum's excess over it; {@code image} itself if the recipe has none.
     */
    static byte[] corrected(ImageRecipes.Recipe<?> recipe, byte[] image, byte[] fresh) {
        if (recipe.errata.isEmpty()) {
            return image;
        }
        ByteBuffer mine = ByteBuffer.wrap(image.clone()).order(ByteOrder.LITTLE_ENDIAN);
        for (ImageRecipes.Erratum e : recipe.errata) {
            int at = e.offset().applyAsInt(image);
            assertThat(e.offset().applyAsInt(fresh)).as("erratum offset").isEqualTo(at);
            long theirs = ByteBuffer.wrap(fresh).order(ByteOrder.LITTLE_ENDIAN).getLong(at);
            assertThat(mine.getLong(at) - theirs).as(recipe.name + ": " + e.field()
                    + " of the v1 image minus a fresh one's").isEqualTo(e.excess());
            mine.putLong(at, theirs);
        }
        return HostileImages.fixUp(mine.array(), recipe.family);
    }

    static byte[] committed(ImageRecipes.Recipe<?> recipe) {
        String path = DIRECTORY + recipe.fileName();
        try (InputStream in = ImageUpgradeTest.class.getResourceAsStream(path)) {
            if (in == null) {
                fail("missing committed image " + path + ": run ImageGenerator (see its Javadoc) and commit the file");
            }
            return in.readAllBytes();
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }

    /** Byte equality, reporting length and the first differing offset rather than two long arrays. */
    static void assertSameBytes(byte[] actual, byte[] expected, String what) {
        if (java.util.Arrays.equals(actual, expected)) {
            return;
        }
        int n = Math.min(actual.length, expected.length);
        int first = 0;
        while (first < n && actual[first] == expected[first]) {
            first++;
        }
        fail(what + ": " + actual.length + " bytes vs " + expected.length + " expected, first difference at offset "
                + first + (first < n ? String.format(Locale.ROOT,
                        " (0x%02X vs 0x%02X)", actual[first], expected[first]) : ""));
    }
}
