/**
 * A streaming, allocation-free capture reader for the {@code replay} feeder: classic pcap and pcapng files to
 * IPv4/IPv6 5-tuples, TCP flags and lengths through a {@link io.linerate.jobs.pcap.PacketVisitor}. Entry point
 * {@link io.linerate.jobs.pcap.CaptureReader}; formats, limits and choices in {@code docs/pcap.md}.
 */
package io.linerate.jobs.pcap;
