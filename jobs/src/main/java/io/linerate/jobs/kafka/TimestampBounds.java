package io.linerate.jobs.kafka;

import java.util.ArrayList;
import java.util.List;

import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.common.config.TopicConfig;

/**
 * The timestamp rules of a topic ({@code message.timestamp.type} and its bounds) and what they mean for a topic
 * written with the input records' own timestamps ({@link TopicPreflight}).
 *
 * @param logAppendTime whether the broker stamps records itself ({@code LogAppendTime}): then no bound applies
 * @param beforeMillis how far behind the broker's clock a record's timestamp may be; {@code Long.MAX_VALUE}: no limit
 * @param afterMillis how far ahead of it; {@code Long.MAX_VALUE}: no limit
 */
record TimestampBounds(boolean logAppendTime, long beforeMillis, long afterMillis) {

  /** The rules {@code config} (a topic's, as DescribeConfigs returns it) sets. */
  static TimestampBounds of(Config config) {
    ConfigEntry type = config.get(TopicConfig.MESSAGE_TIMESTAMP_TYPE_CONFIG);
    boolean logAppend = type != null && "LogAppendTime".equalsIgnoreCase(String.valueOf(type.value()).trim());
    return new TimestampBounds(logAppend, bound(config, TopicConfig.MESSAGE_TIMESTAMP_BEFORE_MAX_MS_CONFIG),
        bound(config, TopicConfig.MESSAGE_TIMESTAMP_AFTER_MAX_MS_CONFIG));
  }

  /** {@code key}'s value; the one bound of brokers before Kafka 3.6 if there is no such key; else no limit. */
  private static long bound(Config config, String key) {
    ConfigEntry e = config.get(key);
    if (e == null || e.value() == null) {
      e = config.get(TopicPreflight.TIMESTAMP_DIFFERENCE_MAX_MS);
    }
    return e == null || e.value() == null ? Long.MAX_VALUE : Long.parseLong(e.value().trim());
  }

  /**
   * The warnings for {@code topic} (described as {@code what}), written with the timestamps of the records of
   * {@code input} (whose config may be null: not known). A finite {@code before} bound always: a record ages
   * between its arrival in the input and its writing (lag, a replay of old input, a restart from an old checkpoint).
   * A finite {@code after} bound unless the input's timestamps cannot be further ahead of the broker's clock than it
   * allows: input stamped by its broker ({@code LogAppendTime}), or taken with an {@code after} bound no looser
   * (the clock only moves on between the input's append and the output's, clock skew between brokers aside).
   */
  static List<String> warnings(String what, Config topic, String input, Config inputConfig) {
    TimestampBounds out = of(topic);
    List<String> warnings = new ArrayList<>();
    if (out.logAppendTime) {
      return warnings;
    }
    String refused = ": the job writes each input record's own timestamp to it, so the broker refuses (Invalid"
        + "TimestampException) a record ";
    String consequence = ", and the sink then fails the job, again on every restart (the restored job writes the "
        + "same record again). To avoid it: raise that bound on the topic, or set message.timestamp.type="
        + "LogAppendTime there (the broker then stamps each record with its own time, the input's timestamp is "
        + "lost), or write envelopes instead of raw records.";
    if (out.beforeMillis != Long.MAX_VALUE) {
      warnings.add(what + " has message.timestamp.type CreateTime and message.timestamp.before.max.ms "
          + out.beforeMillis + refused + "whose timestamp is more than " + out.beforeMillis + " ms behind the "
          + "broker's clock when it is written (input records that old by then: a backlog, a replay of old input, a "
          + "restart from an old checkpoint)" + consequence);
    }
    if (out.afterMillis != Long.MAX_VALUE) {
      TimestampBounds in = inputConfig == null ? null : of(inputConfig);
      if (in == null || !in.logAppendTime && in.afterMillis > out.afterMillis) {
        warnings.add(what + " has message.timestamp.type CreateTime and message.timestamp.after.max.ms "
            + out.afterMillis + refused + "whose timestamp is more than " + out.afterMillis + " ms ahead of the "
            + "broker's clock when it is written, and the input topic '" + input + "' "
            + (in == null ? "may hold such records (its config is not known)"
                : "takes timestamps up to " + (in.afterMillis == Long.MAX_VALUE ? "any time"
                    : in.afterMillis + " ms") + " ahead")
            + consequence);
      }
    }
    return warnings;
  }
}
