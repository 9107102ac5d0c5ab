package io.linerate.flink.flowmeter;

import io.linerate.flink.flowmeter.Packets.Packet;
import io.linerate.flink.state.OperatorMetrics;
import io.linerate.flink.state.WriteBackFunction;
import io.linerate.flink.state.WriteBackOperator;
import java.util.List;
import org.apache.flink.api.common.serialization.SerializerConfigImpl;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.runtime.operators.testutils.MockEnvironment;
import org.apache.flink.runtime.operators.testutils.MockEnvironmentBuilder;
import org.apache.flink.runtime.state.StateBackend;
import org.apache.flink.streaming.api.operators.KeyedProcessOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;

/** Operator test harnesses around the flow meter's function (real Flink operator, state and timers). */
final class Harnesses {

    static final TypeInformation<Packet> PACKET = TypeInformation.of(Packet.class);
    static final int MAX_PARALLELISM = 128;

    private Harnesses() {
    }

    /** A task metric group whose operator group records every metric the operator registers. */
    static final class Metrics extends OperatorMetrics {
    }

    /** A harness around the operator {@link FlowMeter#apply} runs ({@link WriteBackOperator}). */
    static KeyedOneInputStreamOperatorTestHarness<String, Packet, MeteredFlow<String>> open(
            FlowMeter<Packet, String> meter, StateBackend backend, int parallelism, int subtask, Metrics metrics)
            throws Exception {
        return open(meter, backend, parallelism, subtask, metrics, true);
    }

    /**
     * @param writeBack the operator {@link FlowMeter#apply} runs; false: Flink's plain {@link KeyedProcessOperator}
     *        (what custom wiring with {@code process(meter.function(..))} gets: no write-back hook)
     */
    static KeyedOneInputStreamOperatorTestHarness<String, Packet, MeteredFlow<String>> open(
            FlowMeter<Packet, String> meter, StateBackend backend, int parallelism, int subtask, Metrics metrics,
            boolean writeBack) throws Exception {
        MockEnvironment env = new MockEnvironmentBuilder().setMaxParallelism(MAX_PARALLELISM)
                .setParallelism(parallelism).setSubtaskIndex(subtask)
                .setMetricGroup(metrics != null ? metrics : new Metrics()).build();
        KeyedOneInputStreamOperatorTestHarness<String, Packet, MeteredFlow<String>> h =
                new KeyedOneInputStreamOperatorTestHarness<>(writeBack
                        ? new WriteBackOperator<>(meter.function(PACKET))
                        : new KeyedProcessOperator<>(meter.function(PACKET)), p -> p.scope, Types.STRING, env);
        if (backend != null) {
            h.setStateBackend(backend);
        }
        h.setup(meter.outputType().createSerializer(new SerializerConfigImpl()));
        return h;
    }

    static final TypeInformation<Packets.Batch> BATCH = TypeInformation.of(Packets.Batch.class);

    /**
     * A harness around the meter's batch function in the operator {@link FlowMeter#applyToBatches} runs: input
     * {@link Packets.Batch} keyed by its scope.
     */
    static KeyedOneInputStreamOperatorTestHarness<String, Packets.Batch, MeteredFlow<String>> openBatches(
            FlowMeter<Packet, String> meter, StateBackend backend, int parallelism, int subtask, Metrics metrics)
            throws Exception {
        MockEnvironment env = new MockEnvironmentBuilder().setMaxParallelism(MAX_PARALLELISM)
                .setParallelism(parallelism).setSubtaskIndex(subtask)
                .setMetricGroup(metrics != null ? metrics : new Metrics()).build();
        KeyedOneInputStreamOperatorTestHarness<String, Packets.Batch, MeteredFlow<String>> h =
                new KeyedOneInputStreamOperatorTestHarness<>(new WriteBackOperator<>(
                        meter.batchFunction(BATCH, PACKET, Packets.ELEMENTS)), b -> b.scope, Types.STRING, env);
        if (backend != null) {
            h.setStateBackend(backend);
        }
        h.setup(meter.outputType().createSerializer(new SerializerConfigImpl()));
        return h;
    }

    /**
     * The scope's flow table image as the operator holds it now (null: no table), read through the keyed state
     * backend as the operator does, after the function wrote back what it caches.
     */
    static byte[] tableImage(KeyedOneInputStreamOperatorTestHarness<String, ?, MeteredFlow<String>> h, String scope)
            throws Exception {
        var operator = (org.apache.flink.streaming.api.operators.AbstractUdfStreamOperator<?, ?>) h.getOperator();
        if (operator.getUserFunction() instanceof WriteBackFunction<?> cached) {
            cached.writeBack();
        }
        operator.setCurrentKey(scope);
        org.apache.flink.api.common.state.ValueState<io.linerate.sketches.flowtable.FlowTable> state =
                operator.getKeyedStateBackend().getPartitionedState(
                        org.apache.flink.runtime.state.VoidNamespace.INSTANCE,
                        org.apache.flink.runtime.state.VoidNamespaceSerializer.INSTANCE,
                        new org.apache.flink.api.common.state.ValueStateDescriptor<>("flowTable",
                                new io.linerate.flink.serializers.FlowTableTypeInfo()));
        io.linerate.sketches.flowtable.FlowTable table = state.value();
        return table == null ? null : table.toByteArray();
    }

    static void send(KeyedOneInputStreamOperatorTestHarness<String, Packet, MeteredFlow<String>> h, Packet p)
            throws Exception {
        h.processElement(new StreamRecord<>(p, p.ts));
    }

    /** Sends {@code packets}, with a watermark of (timestamp − lag) after every {@code every} packets. */
    static void sendAll(KeyedOneInputStreamOperatorTestHarness<String, Packet, MeteredFlow<String>> h,
                        List<Packet> packets, int every, long lag) throws Exception {
        for (int i = 0; i < packets.size(); i++) {
            send(h, packets.get(i));
            if ((i + 1) % every == 0) {
                h.processWatermark(packets.get(i).ts - lag);
            }
        }
    }
}
