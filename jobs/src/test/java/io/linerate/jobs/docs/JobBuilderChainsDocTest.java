package io.linerate.jobs.docs;

import static org.assertj.core.api.Assertions.assertThat;

import io.linerate.jobs.dedup.DedupJob;
import io.linerate.jobs.flowmeter.FlowMeterJob;
import io.linerate.jobs.format.JsonEventFormat;
import io.linerate.jobs.heavyhitters.HeavyHittersJob;
import io.linerate.jobs.kafka.ClientProperties;
import io.linerate.jobs.kafka.WrittenTopics;
import io.linerate.jobs.local.JobTopics;
import io.linerate.sketches.flowtable.FlowKeyFormat;
import io.linerate.sketches.flowtable.InsertionScheme;
import io.linerate.sketches.flowtable.OverflowPolicy;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.junit.jupiter.api.Test;

/**
 * docs/jobs.md's "From Java" builder chains of FlowMeterJob and DedupJob, and the Kafka settings every job builder
 * takes, with the topic check's inputs (docs/kafka.md's TopicPreflight snippet).
 */
class JobBuilderChainsDocTest {

    @Test
    void flowMeterJobChain() {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.enableCheckpointing(10_000);
        String servers = "localhost:9092", input = "packets", output = "flows", deadLetter = "dead-letters";
        FlowMeterJob job = FlowMeterJob.builder().capacity(1000).idleTimeout(Duration.ofSeconds(15))
                .activeTimeout(Duration.ofMinutes(30)).tick(Duration.ofSeconds(1)).scheme(InsertionScheme.SECOND_CHANCE)
                .overflow(OverflowPolicy.EVICT_LEAST_RECENT).stashCapacity(64).stateCacheBytes(1 << 20)
                .keyFormat(FlowKeyFormat.IPV4_ONLY).seed(7).outOfOrderness(Duration.ofSeconds(2))
                .idleness(Duration.ofSeconds(30)).bounded(true).transactionTimeout(Duration.ofMinutes(10)).build();
        job.define(env, new JobTopics(servers, input, output, deadLetter));
        assertThat(env.getStreamGraph(false).getStreamNodes()).isNotEmpty();
    }

    @Test
    void dedupJobChain() {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.enableCheckpointing(10_000);
        JobTopics topics = new JobTopics("localhost:9092", "events", "unique", "dead-letters");
        DedupJob job = DedupJob.builder().keyField("id").weightField("w").timestampField("ts")
                .epochUnit(JsonEventFormat.EpochUnit.values()[0]).scopeField("tenant")
                .horizon(Duration.ofMinutes(10)).expectedRate(1000).fpp(0.001).generations(4).seed(7)
                .duplicatesTopic("dups").outputFormat(DedupJob.OutputFormat.values()[0])
                .outOfOrderness(Duration.ofSeconds(2)).idleness(Duration.ofSeconds(30)).bounded(true)
                .transactionTimeout(Duration.ofMinutes(10)).build();
        job.define(env, topics);
        assertThat(env.getStreamGraph(false).getStreamNodes()).isNotEmpty();
        DedupJob composite = DedupJob.builder().keyFields(List.of("a", "b")).timestampField("ts")
                .constantScope("all").build();
        // without duplicatesTopic, duplicates go to the output topic
        assertThat(composite.duplicatesTopic(topics)).isEqualTo("unique");
    }

    /** jobs.md: "Every job builder also takes clientProperty, sourceProperty, maxDeadLetterBytes, sinkProperty, jobName". */
    @Test
    void everyJobBuilderTakesTheKafkaSettings() {
        JobTopics topics = new JobTopics("localhost:9092", "packets", "out", "dead-letters");
        var jobs = List.of(
                HeavyHittersJob.builder().clientProperty("security.protocol", "PLAINTEXT")
                        .sourceProperty("client.id.prefix", "hh").sinkProperty("compression.type", "zstd")
                        .maxDeadLetterBytes(4096).jobName("a").build(),
                FlowMeterJob.builder().capacity(1000).clientProperty("security.protocol", "PLAINTEXT")
                        .sourceProperty("client.id.prefix", "fm").sinkProperty("compression.type", "zstd")
                        .maxDeadLetterBytes(4096).jobName("a").build(),
                DedupJob.builder().clientProperty("security.protocol", "PLAINTEXT")
                        .sourceProperty("client.id.prefix", "dd").sinkProperty("compression.type", "zstd")
                        .maxDeadLetterBytes(4096).jobName("a").build());
        for (var job : jobs) {
            WrittenTopics written = job.writtenTopics(topics);
            Map<String, Object> admin = ClientProperties.adminConfig(topics.bootstrapServers(), job.adminProperties());
            assertThat(written.topics()).as(job.name()).contains("out", "dead-letters").doesNotContain("packets");
            assertThat(admin).as(job.name()).containsEntry("security.protocol", "PLAINTEXT")
                    .containsEntry("bootstrap.servers", "localhost:9092").doesNotContainKey("compression.type");
            assertThat(job.name()).isEqualTo("a");
        }
    }
}
