package io.linerate.jobs.feed;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import io.linerate.jobs.cli.DurationConverter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Durations the options accept (DurationConverter: anything that fits 64-bit milliseconds) must not overflow once
 * the feeder runs: {@code --progress-interval} is held in nanoseconds (292 years at most), and the builders' own
 * API takes any {@link Duration}.
 */
class FeederDurationLimitsTest {

    @TempDir
    Path dir;

    @Test
    void aProgressIntervalTheCommandLineAcceptsDoesNotFailTheReplay() throws Exception {
        Path pcap = dir.resolve("one.pcap");
        Captures.writePcap(pcap, Captures.packets(3, 1_700_000_000_000_000L, 1000), 0);
        Duration interval = DurationConverter.parse("200000d"); // 547 years: fits milliseconds, not nanoseconds
        PcapReplay replay = PcapReplay.builder(List.of(pcap)).progressInterval(interval).build();
        // stopped before the first record: nothing to send, so no broker is needed
        FeedSummary s = replay.run("127.0.0.1:1", "unused", () -> true, n -> { });
        assertThat(s.units()).isZero();
    }

    @Test
    void anInjectAfterBeyondMillisecondsIsRefusedNamingItsOption() {
        assertThatThrownBy(() -> SyntheticTraffic.builder().injectAfter(Duration.ofSeconds(Long.MAX_VALUE)).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("--inject-after");
    }
}
