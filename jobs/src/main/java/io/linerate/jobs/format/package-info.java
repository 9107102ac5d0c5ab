/**
 * The record formats of the jobs (documented in {@code docs/FORMATS.md}).
 *
 * <ul>
 *   <li>Packets: {@link io.linerate.jobs.format.PacketRecord} (a reusable flyweight) and
 *       {@link io.linerate.jobs.format.PacketBatch} (the packets of one observation point, column-wise), their Flink
 *       serializers, and the binary Kafka value encoding {@link io.linerate.jobs.format.PacketBatchCodec} (version 1,
 *       a validating decoder that reports the reason and byte offset of any defect).</li>
 *   <li>Generic events: {@link io.linerate.jobs.format.JsonEventFormat} reads JSON into
 *       {@link io.linerate.jobs.format.Event}.</li>
 *   <li>Kafka input: {@link io.linerate.jobs.format.KafkaDecoding} emits {@link io.linerate.jobs.format.Decoded}
 *       values or {@link io.linerate.jobs.format.DeadLetter}s, split by {@link io.linerate.jobs.format.SplitDecoded}.</li>
 *   <li>Kafka output: {@link io.linerate.jobs.format.OutputJson} — one JSON schema per output record type.</li>
 * </ul>
 */
package io.linerate.jobs.format;
