package io.linerate.jobs.cli;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * What {@link Slf4jWithoutBinding} keeps of slf4j's output when it binds without a binding: everything but the NOP
 * fallback's three lines (the job jar's run without them: {@code JarContentsIT.theFeedersRunFromTheJobJarWithoutFlink}).
 */
class Slf4jWithoutBindingTest {

  @Test
  void onlyTheNopFallbackNoticeIsDropped() {
    String nl = System.lineSeparator();
    String notice = String.join(nl, Slf4jWithoutBinding.NOTICE) + nl;
    assertThat(Slf4jWithoutBinding.beyondNotice(notice)).isEmpty();
    assertThat(Slf4jWithoutBinding.beyondNotice(notice.replace(nl, "\r\n"))).isEmpty();
    String other = "SLF4J: Class path contains multiple SLF4J bindings." + nl;
    assertThat(Slf4jWithoutBinding.beyondNotice(other + notice)).isEqualTo(other);
    assertThat(Slf4jWithoutBinding.beyondNotice("")).isEmpty();
  }
}
