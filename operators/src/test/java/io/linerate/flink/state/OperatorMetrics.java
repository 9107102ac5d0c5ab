package io.linerate.flink.state;

import java.util.Map;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.Gauge;
import org.apache.flink.metrics.Metric;
import org.apache.flink.runtime.jobgraph.OperatorID;
import org.apache.flink.runtime.metrics.groups.InternalOperatorMetricGroup;
import org.apache.flink.runtime.metrics.util.InterceptingOperatorMetricGroup;
import org.apache.flink.runtime.metrics.util.InterceptingTaskMetricGroup;

/**
 * A task metric group for test harnesses (pass it to a {@code MockEnvironmentBuilder}) whose operator group records
 * every metric the operator registers, so a test reads counters and gauges by name.
 */
public class OperatorMetrics extends InterceptingTaskMetricGroup {

    private final InterceptingOperatorMetricGroup operator = new InterceptingOperatorMetricGroup();

    @Override
    public InternalOperatorMetricGroup getOrAddOperator(OperatorID id, String name, Map<String, String> variables) {
        return operator;
    }

    /** The count of the counter {@code name}. */
    public long count(String name) {
        return ((Counter) metric(name)).getCount();
    }

    /** The value of the gauge {@code name}. */
    public Object gaugeValue(String name) {
        return ((Gauge<?>) metric(name)).getValue();
    }

    private Metric metric(String name) {
        Metric m = operator.get(name);
        if (m == null) {
            throw new AssertionError("no metric " + name);
        }
        return m;
    }
}
