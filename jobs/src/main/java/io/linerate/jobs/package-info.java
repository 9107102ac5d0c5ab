/**
 * Runnable Flink jobs from Kafka to Kafka over the linerate operators, their record formats, the traffic feeders
 * and the embedded default (a KRaft broker and a local Flink cluster). One package per part: {@code format},
 * {@code pcap}, {@code kafka}, …
 */
package io.linerate.jobs;
