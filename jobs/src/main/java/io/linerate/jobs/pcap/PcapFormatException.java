package io.linerate.jobs.pcap;

import java.io.IOException;

/**
 * The capture FILE is malformed or truncated (bad magic number, block length mismatch, record or block cut short,
 * captured length beyond the snaplen, …): reading cannot go on. The message names the byte offset of the
 * structure that failed and what was expected there. (A packet whose inner headers are malformed is not an error:
 * it is counted as skipped, see {@link SkipReason}.)
 */
public final class PcapFormatException extends IOException {

    private static final long serialVersionUID = 1L;

    private final long offset;

    public PcapFormatException(long offset, String what) {
        super("offset " + offset + ": " + what);
        this.offset = offset;
    }

    /** The byte offset (from the start of the file) of the structure that failed. */
    public long offset() {
        return offset;
    }
}
