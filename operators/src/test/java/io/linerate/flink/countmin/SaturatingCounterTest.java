package io.linerate.flink.countmin;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class SaturatingCounterTest {

    @Test
    void weightsSummedPastTheLongRangeStopAtItsMaximum() {
        SaturatingCounter c = new SaturatingCounter();
        c.inc(Long.MAX_VALUE - 1);
        c.inc();
        assertThat(c.getCount()).isEqualTo(Long.MAX_VALUE);
        c.inc(5);
        assertThat(c.getCount()).as("not wrapped negative").isEqualTo(Long.MAX_VALUE);
        c.inc(0);
        assertThat(c.getCount()).isEqualTo(Long.MAX_VALUE);
    }
}
