package io.linerate.benchmarks.pipeline.plain;

/**
 * The per-flow state of {@link FlinkFlowMeter}, a mutable POJO as a Flink user writes one (Flink's POJO
 * serializer: public no-argument constructor, public fields).
 */
public class FlowCounters {
    public long packets;
    public long bytes;
    public int tcpFlags;
    public long first;
    public long last;
    /** The event-time timer registered for this flow's idle timeout. */
    public long timer;

    public FlowCounters() {
    }
}
