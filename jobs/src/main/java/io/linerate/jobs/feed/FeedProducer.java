package io.linerate.jobs.feed;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.LongConsumer;

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
        this.topic = topic;
        this.onAcked = onAcked;
        Map<String, Object> props = new HashMap<>();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        props.put(ProducerConfig.CLIENT_ID_CONFIG, clientId);
        props.put(ProducerConfig.ACKS_CONFIG, "all");
        props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        props.put(ProducerConfig.LINGER_MS_CONFIG, 10);
        props.put(ProducerConfig.BATCH_SIZE_CONFIG, 256 * 1024);
        props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        this.producer = new KafkaProducer<>(props);
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
