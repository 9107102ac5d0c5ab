package io.linerate.flink.countmin;

import org.apache.flink.metrics.Counter;

/**
 * A counter of weights that stops at {@link Long#MAX_VALUE} instead of wrapping negative, as the sketches' own
 * counters do: a metric of weights summed past 2<sup>63</sup> − 1 reads as that maximum, never as a negative total.
 */
final class SaturatingCounter implements Counter {

    private long count;

    @Override
    public void inc() {
        inc(1);
    }

    @Override
    public void inc(long n) {
        long sum = count + n;
        // overflow only when both are positive and the sum is not (weights are ≥ 0)
        count = n > 0 && sum < count ? Long.MAX_VALUE : sum;
    }

    @Override
    public void dec() {
        dec(1);
    }

    @Override
    public void dec(long n) {
        count -= n;
    }

    @Override
    public long getCount() {
        return count;
    }
}
