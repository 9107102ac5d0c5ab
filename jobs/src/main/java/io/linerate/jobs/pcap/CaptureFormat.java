package io.linerate.jobs.pcap;

/** The container format of a capture file, told by its first four bytes. */
public enum CaptureFormat {
    /** Classic libpcap, microsecond timestamps (magic a1b2c3d4 in either byte order). */
    PCAP_MICROSECONDS,
    /** Classic libpcap, nanosecond timestamps (magic a1b23c4d in either byte order). */
    PCAP_NANOSECONDS,
    /** pcapng (first block a section header block, type 0a0d0d0a). */
    PCAPNG
}
