package io.linerate.jobs.local;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

/**
 * Which Java versions get the warning, and that it agrees with the build's enforcer rule. Why this can fail: a
 * range changed in one place and not the other would let the build pass on a Java the jobs then warn about (or
 * refuse one they run on).
 */
class SupportedJavaTest {

  @ParameterizedTest
  @ValueSource(strings = {"17", "17.0.15+6", "20.0.2", "21", "21.0.5+11-LTS", "25", "25.0.3+9-LTS"})
  void noWarningFrom17To21AndOn25(String version) {
    assertThat(SupportedJava.warning(Runtime.Version.parse(version))).isEmpty();
  }

  @ParameterizedTest
  @ValueSource(strings = {"16.0.2", "22", "24.0.1", "26-ea"})
  void aWarningNamingTheVersionAndWhatToUseOtherwise(String version) {
    assertThat(SupportedJava.warning(Runtime.Version.parse(version))).hasValueSatisfying(w -> assertThat(w)
        .startsWith("Java " + version + " is not supported: linerate runs Flink on Java 17 to 21 and on 25 (")
        .endsWith("Run it with a JDK 17, 21 or 25."));
  }

  @Test
  void theVersionsAreTheEnforcerRulesOfTheParentPom() throws Exception {
    String pom = Files.readString(Path.of(System.getProperty("basedir", ".")).resolve("../pom.xml"),
        StandardCharsets.UTF_8);
    String range = "<version>[" + SupportedJava.LOWEST + "," + (SupportedJava.HIGHEST_DOCUMENTED + 1) + "),["
        + SupportedJava.TESTED_BEYOND + "," + (SupportedJava.TESTED_BEYOND + 1) + ")</version>";
    assertThat(pom).as("the parent pom's requireJavaVersion").contains("<requireJavaVersion>\n                  " + range);
    assertThat(pom).contains("<maven.compiler.release>" + SupportedJava.LOWEST + "</maven.compiler.release>");
  }
}
