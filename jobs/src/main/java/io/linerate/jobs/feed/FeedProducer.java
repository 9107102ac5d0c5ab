package io.linerate.jobs.feed;

import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.LongConsumer;

import io.linerate.jobs.kafka.ClientProperties;
import io.linerate.jobs.kafka.KafkaJobOptions;
import io.linerate.jobs.kafka.ProducerLimits;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * The feeders' Kafka producer: plain (not transactional), idempotent, {@code acks=all}, so every record the broker
 * acknowledged is in the topic exactly once even when the producer retried. Counts what was acknowledged and keeps
 * the first send failure, which the next {@link #send} or {@link #flush} throws.
 */
final class FeedProducer implements AutoCloseable {

    private final String topic;
    private final KafkaProducer<byte[], byte[]> producer;
    private final AtomicReference<Exception> failure = new AtomicReference<>();
    private final AtomicLong ackedRecords = new AtomicLong();
    private final AtomicLong ackedUnits = new AtomicLong();
    private final AtomicLong ackedBytes = new AtomicLong();
    private final LongConsumer onAcked;

    /**
     * @param onAcked called (on the producer's I/O thread) with the units (packets or events) of each acknowledged
     *     record
     */
    FeedProducer(String bootstrapServers, String topic, String clientId, LongConsumer onAcked) {
        this(bootstrapServers, topic, clientId, Map.of(), onAcked);
    }

    /**
     * @param properties further producer properties ({@link #checkProperty}): security settings, {@code linger.ms},
     *     {@code batch.size} (10 ms and 256 KiB unless set), {@code client.id}…
     * @throws IllegalArgumentException naming a property the feeder owns or a value the producer would refuse
     */
    FeedProducer(String bootstrapServers, String topic, String clientId, Map<String, String> properties,
                 LongConsumer onAcked) {
        this.topic = topic;
        this.onAcked = onAcked;
        properties.forEach(FeedProducer::checkProperty);
        Map<String, Object> props = new HashMap<>();
        props.put(ProducerConfig.CLIENT_ID_CONFIG, clientId);
        props.put(ProducerConfig.ACKS_CONFIG, "all");
        props.put(ProducerConfig.LINGER_MS_CONFIG, 10);
        props.put(ProducerConfig.BATCH_SIZE_CONFIG, 256 * 1024);
        props.putAll(ClientProperties.forClient(ClientProperties.Client.PRODUCER, properties));
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        this.producer = new KafkaProducer<>(props);
    }

    /** The producer properties the feeder sets itself, whatever it is given. */
    static final Set<String> OWNED = Set.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
            ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, ProducerConfig.TRANSACTIONAL_ID_CONFIG,
            ProducerConfig.TRANSACTION_TIMEOUT_CONFIG, ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG,
            ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG);

    /**
     * Refuses a property the feeder owns ({@link #OWNED}: its producer is idempotent, not transactional, and writes
     * bytes), and a value Kafka's producer would refuse, or an idempotent one ({@code acks} other than all…), as the
     * jobs' sinks refuse it ({@link KafkaJobOptions#checkSinkProperty}).
     *
     * @throws IllegalArgumentException naming the property
     */
    static void checkProperty(String key, String value) {
        if (OWNED.contains(key)) {
            throw new IllegalArgumentException(key + " is set by the feeder itself (its producer is idempotent, not "
                    + "transactional, and writes bytes)");
        }
        ProducerLimits.checkProducerValue(key, value, ProducerLimits.FEEDER); // no Flink: runs from the job jar
    }

    /** Sends one record of {@code units} packets or events; blocks when the producer's buffer is full. */
    void send(byte[] key, byte[] value, long units) throws Exception {
        rethrow();
        int bytes = value.length;
        producer.send(new ProducerRecord<>(topic, key, value), (metadata, e) -> {
            if (e != null) {
                failure.compareAndSet(null, e);
            } else {
                ackedRecords.incrementAndGet();
                ackedUnits.addAndGet(units);
                ackedBytes.addAndGet(bytes);
                onAcked.accept(units);
            }
        });
    }

    /** Waits until every record sent so far is acknowledged; throws the first failure. */
    void flush() throws Exception {
        producer.flush();
        rethrow();
    }

    private void rethrow() throws Exception {
        Exception e = failure.get();
        if (e != null) {
            throw new IllegalStateException("writing to topic " + topic + " failed: " + e, e);
        }
    }

    long ackedRecords() {
        return ackedRecords.get();
    }

    long ackedUnits() {
        return ackedUnits.get();
    }

    long ackedBytes() {
        return ackedBytes.get();
    }

    @Override
    public void close() {
        producer.close();
    }
}
