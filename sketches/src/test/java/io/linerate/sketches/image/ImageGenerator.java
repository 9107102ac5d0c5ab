package io.linerate.sketches.image;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.Arrays;
import java.util.Locale;

/**
 * Writes the image of every {@link ImageRecipes recipe} to {@code sketches/src/test/resources/images/v1/<name>.bin}.
 * Not a test and never run by the build: regenerating is a deliberate act, see {@link ImageUpgradeTest}.
 *
 * <pre>
 * mvn -B -q -o -pl sketches test-compile exec:java -Dexec.skip=false -Dexec.classpathScope=test \
 *     -Dexec.mainClass=io.linerate.sketches.image.ImageGenerator
 * </pre>
 *
 * From the repository root; the parent pom sets {@code exec.skip}, so exec:java runs only when asked like this.
 * It writes only missing files; a file that differs from its recipe only by the recipe's declared erratum is left
 * alone as unchanged; a file that exists with other different bytes is reported and left alone unless
 * {@code --overwrite-released-images} is given (an exception ends the run), because a committed v1 image stands
 * for what a released version wrote and must not change. An optional directory argument writes elsewhere (e.g.
 * to compare by hand).
 */
public final class ImageGenerator {

    static final String OVERWRITE = "--overwrite-released-images";

    private ImageGenerator() {
    }

    public static void main(String[] args) throws IOException {
        boolean overwrite = Arrays.asList(args).contains(OVERWRITE);
        Path dir = Arrays.stream(args).filter(a -> !a.startsWith("--")).findFirst().map(Paths::get)
                .orElseGet(ImageGenerator::defaultDirectory);
        Files.createDirectories(dir);
        int written = 0;
        int kept = 0;
        int differing = 0;
        long total = 0;
        for (ImageRecipes.Recipe<?> recipe : ImageRecipes.all().values()) {
            byte[] image = recipe.buildImage();
            Path file = dir.resolve(recipe.fileName());
            total += image.length;
            if (Files.exists(file)) {
                byte[] existing = Files.readAllBytes(file);
                if (Arrays.equals(existing, image)) {
                    kept++;
                    continue;
                }
                if (differsByItsErratum(recipe, existing, image)) {
                    kept++;
                    System.out.printf(Locale.ROOT,
                            "erratum  %-40s %6d bytes (%s as declared; left unchanged)%n", recipe.fileName(),
                            image.length, recipe.errata.stream().map(ImageRecipes.Erratum::field).toList());
                    continue;
                }
                if (!overwrite) {
                    differing++;
                    System.out.printf(Locale.ROOT,
                            "DIFFERS  %-40s %6d bytes (left unchanged)%n", recipe.fileName(), image.length);
                    continue;
                }
            }
            Files.write(file, image);
            written++;
            System.out.printf(Locale.ROOT, "wrote    %-40s %6d bytes%n", recipe.fileName(), image.length);
        }
        System.out.printf(Locale.ROOT,
                "%d written, %d unchanged, %d differing, %d bytes in all, in %s%n", written, kept, differing,
                total, dir.toAbsolutePath());
        if (differing > 0) {
            throw new IllegalStateException(differing + " committed image(s) differ from what their recipes build "
                    + "now: the format or the structure's behaviour changed. Bump the family's format version instead "
                    + "of rewriting v1 (see ImageUpgradeTest), or pass " + OVERWRITE + " if the image was never "
                    + "released.");
        }
    }

    /**
     * Whether {@code existing} is {@code fresh} but for the recipe's declared {@link ImageRecipes.Erratum} (a
     * statistic the released code counted wrongly): the same check {@link ImageUpgradeTest} makes.
     */
    private static boolean differsByItsErratum(ImageRecipes.Recipe<?> recipe, byte[] existing, byte[] fresh) {
        if (recipe.errata.isEmpty()) {
            return false;
        }
        try {
            return Arrays.equals(ImageUpgradeTest.corrected(recipe, existing, fresh), fresh);
        } catch (AssertionError e) { // not the declared excess: a real difference
            return false;
        }
    }

    private static Path defaultDirectory() {
        Path fromRoot = Paths.get("sketches", "src", "test", "resources", "images", "v1");
        return Files.isDirectory(Paths.get("sketches", "src")) ? fromRoot
                : Paths.get("src", "test", "resources", "images", "v1");
    }
}
