package io.linerate.jobs.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.linerate.jobs.dedup.DedupJob;
import io.linerate.jobs.flowmeter.FlowMeterJob;
import io.linerate.jobs.heavyhitters.HeavyHittersJob;
import io.linerate.jobs.local.JobLauncher;
import io.linerate.jobs.local.JobTopics;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The topic check's admin client reaches the cluster the job's own clients reach: it takes their settings. */
class TopicChecksTest {

  private static final JobTopics TOPICS = new JobTopics("kafka-1:9093,kafka-2:9093", "in", "out", "dead");

  @Test
  void theTopicCheckOfEveryJobTakesItsClientPropertiesButNotThoseOfOneClient() {
    List<JobLauncher> jobs = List.of(
        FlowMeterJob.builder().capacity(1_024).clientProperty("security.protocol", "SASL_SSL")
            .clientProperty("sasl.mechanism", "SCRAM-SHA-512").sourceProperty("fetch.min.bytes", "1024")
            .sinkProperty("linger.ms", "20").build(),
        HeavyHittersJob.builder().clientProperty("security.protocol", "SASL_SSL")
            .clientProperty("sasl.mechanism", "SCRAM-SHA-512").sourceProperty("fetch.min.bytes", "1024")
            .sinkProperty("linger.ms", "20").build(),
        DedupJob.builder().clientProperty("security.protocol", "SASL_SSL")
            .clientProperty("sasl.mechanism", "SCRAM-SHA-512").sourceProperty("fetch.min.bytes", "1024")
            .sinkProperty("linger.ms", "20").build());
    for (JobLauncher job : jobs) {
      Map<String, Object> config = TopicChecks.adminConfig(job, TOPICS);
      assertThat(config).as(job.getClass().getSimpleName())
          .containsEntry("bootstrap.servers", "kafka-1:9093,kafka-2:9093")
          .containsEntry("security.protocol", "SASL_SSL")
          .containsEntry("sasl.mechanism", "SCRAM-SHA-512")
          .doesNotContainKeys("fetch.min.bytes", "linger.ms");
    }
  }
}
