package io.linerate.jobs.kafka;

import static org.assertj.core.api.Assertions.assertThatCode;

import org.apache.flink.api.common.serialization.SimpleStringSchema;
import org.junit.jupiter.api.Test;

/** Legitimate producer and consumer properties stay accepted by the new value checks. */
class KafkaLegitimatePropertiesTest {

  private static final String[][] PRODUCER = {
      {"acks", "all"}, {"acks", "-1"}, {"compression.type", "zstd"}, {"compression.type", "lz4"},
      {"compression.type", "gzip"}, {"compression.type", "snappy"}, {"compression.type", "none"},
      {"compression.zstd.level", "3"}, {"linger.ms", "20"}, {"batch.size", "65536"}, {"buffer.memory", "67108864"},
      {"max.in.flight.requests.per.connection", "5"}, {"retries", "2147483647"}, {"delivery.timeout.ms", "120000"},
      {"request.timeout.ms", "30000"}, {"security.protocol", "SASL_SSL"}, {"sasl.mechanism", "SCRAM-SHA-512"},
      {"sasl.jaas.config", "org.apache.kafka.common.security.scram.ScramLoginModule required username=\"u\" password=\"p\";"},
      {"ssl.endpoint.identification.algorithm", ""}, {"ssl.truststore.location", "/etc/ssl/t.jks"},
      {"ssl.truststore.password", "secret"}, {"ssl.truststore.type", "PKCS12"}, {"client.id", "x"},
      {"client.dns.lookup", "use_all_dns_ips"}, {"interceptor.classes", "com.example.Interceptor"},
      {"sasl.login.callback.handler.class", "com.example.Handler"}, {"partitioner.class", "com.example.P"},
      {"metadata.max.age.ms", "60000"}, {"enable.metrics.push", "false"}, {"max.block.ms", "60000"},
      {"security.protocol", "ssl"}, {"some.plugin.setting", "anything"},
  };

  private static final String[][] CONSUMER = {
      {"client.rack", "eu-1a"}, {"group.instance.id", "i-1"}, {"fetch.max.bytes", "52428800"},
      {"max.partition.fetch.bytes", "1048576"}, {"max.poll.records", "500"}, {"enable.auto.commit", "false"},
      {"partition.discovery.interval.ms", "10000"}, {"client.id.prefix", "p"}, {"commit.offsets.on.checkpoint", "true"},
      {"register.consumer.metrics", "false"}, {"security.protocol", "SASL_PLAINTEXT"}, {"sasl.mechanism", "PLAIN"},
      {"check.crcs", "true"}, {"session.timeout.ms", "45000"}, {"heartbeat.interval.ms", "3000"},
      {"request.timeout.ms", "30000"}, {"receive.buffer.bytes", "-1"}, {"send.buffer.bytes", "-1"},
      {"partition.assignment.strategy", "org.apache.kafka.clients.consumer.CooperativeStickyAssignor"},
      {"ssl.endpoint.identification.algorithm", ""}, {"fetch.min.bytes", "1"},
  };

  @Test
  void legitimateProducerPropertiesAreAccepted() {
    for (String[] p : PRODUCER) {
      assertThatCode(() -> ExactlyOnceSink.builder(new SimpleStringSchema()).bootstrapServers("127.0.0.1:1")
          .topic("out").jobName("job").property(p[0], p[1]).build()).as("%s=%s", p[0], p[1]).doesNotThrowAnyException();
    }
  }

  @Test
  void legitimateConsumerPropertiesAreAccepted() {
    for (String[] p : CONSUMER) {
      assertThatCode(() -> ExactlyOnceSource.builder(new SimpleStringSchema()).bootstrapServers("127.0.0.1:1")
          .topics("in").jobName("job").property(p[0], p[1]).build()).as("%s=%s", p[0], p[1]).doesNotThrowAnyException();
    }
  }

  @Test
  void legitimateJobSinkPropertiesAreAccepted() {
    for (String[] p : PRODUCER) {
      KafkaJobOptions options = new KafkaJobOptions(java.time.Duration.ofSeconds(1), java.time.Duration.ofSeconds(1));
      assertThatCode(() -> options.sinkProperty(p[0], p[1])).as("%s=%s", p[0], p[1]).doesNotThrowAnyException();
    }
  }
}
