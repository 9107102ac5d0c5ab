package io.linerate.jobs.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import org.apache.flink.connector.kafka.source.KafkaSourceOptions;
import org.junit.jupiter.api.Test;

/** The keys {@link ClientProperties} writes out (so the feeders need no Flink class) are Flink's own. */
class ClientPropertiesTest {

  @Test
  void theFlinkSourceKeysAreThoseOfFlinksKafkaSourceOptions() {
    assertThat(ClientProperties.FLINK_SOURCE_KEYS).containsExactlyInAnyOrder(
        KafkaSourceOptions.CLIENT_ID_PREFIX.key(), KafkaSourceOptions.PARTITION_DISCOVERY_INTERVAL_MS.key(),
        KafkaSourceOptions.REGISTER_KAFKA_CONSUMER_METRICS.key(), KafkaSourceOptions.COMMIT_OFFSETS_ON_CHECKPOINT.key());
  }

  @Test
  void theRecordOverheadIsTheSinksAndAProducersLimitFollowsItsSettings() {
    assertThat(ExactlyOnceSink.RECORD_OVERHEAD).isEqualTo(ProducerLimits.RECORD_OVERHEAD);
    assertThat(ProducerLimits.maxValueBytes(java.util.Map.of())).isEqualTo(JsonTopics.maxValueBytes());
    java.util.Map<String, String> small = java.util.Map.of("max.request.size", "500000", "buffer.memory", "400000");
    assertThat(ProducerLimits.maxValueBytes(small)).isEqualTo(JsonTopics.maxValueBytes(small))
        .isEqualTo(400_000 - ProducerLimits.RECORD_OVERHEAD);
  }
}
