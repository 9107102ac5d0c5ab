package io.linerate.jobs.pcap;

import java.io.IOException;

/** One capture file format: reads the next packet record into the decoder. */
interface RecordSource {

    /** Reads and decodes the next packet record; false at a clean end of file. */
    boolean next(PacketDecoder decoder) throws IOException;

    /** The interface (pcapng) of the record last read; 0 for classic pcap. */
    int interfaceId();

    /** The link type of the record last read. */
    int linkType();

    /** Non-packet blocks skipped (pcapng: name resolution, statistics, unknown types…). */
    long blocksSkipped();
}
