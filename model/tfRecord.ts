/**
 * TFRecord framing, as TensorFlow's record writer and reader lay it out (tensorflow/core/lib/io/record_writer.h):
 * per record a `uint64` length (little endian), the masked CRC32C of those 8 bytes, the data, and the masked
 * CRC32C of the data. Uncompressed only: TF Serving opens its warmup file without a compression type.
 */

/** CRC32C (Castagnoli) in its reflected form, the polynomial of TensorFlow's crc32c. */
const CASTAGNOLI_REFLECTED = 0x82f63b78;
/** The constant TensorFlow adds to a rotated CRC so that a CRC over data that holds CRCs is not trivially zero. */
const MASK_DELTA = 0xa282ead8;
const LENGTH_BYTES = 8;
const CRC_BYTES = 4;
/** Header (length + its CRC) and footer (data CRC) around each record's data. */
export const RECORD_OVERHEAD_BYTES = LENGTH_BYTES + 2 * CRC_BYTES;

const TABLE = (() => {
    const table = new Uint32Array(256);
    for (let n = 0; n < 256; n++) {
        let c = n;
        for (let k = 0; k < 8; k++) {
            c = c & 1 ? (c >>> 1) ^ CASTAGNOLI_REFLECTED : c >>> 1;
        }
        table[n] = c >>> 0;
    }
    return table;
})();

/** The CRC32C of `bytes`, as an unsigned 32-bit number. */
export function crc32c(bytes: Uint8Array): number {
    let crc = 0xffffffff;
    for (let i = 0; i < bytes.length; i++) {
        crc = TABLE[(crc ^ bytes[i]) & 0xff] ^ (crc >>> 8);
    }
    return (crc ^ 0xffffffff) >>> 0;
}

/** TensorFlow's masked form of a CRC (tensorflow/core/lib/hash/crc32c.h): rotated right by 15 bits, plus a constant. */
export function maskCrc(crc: number): number {
    return ((((crc >>> 15) | (crc << 17)) >>> 0) + MASK_DELTA) >>> 0;
}

export function unmaskCrc(masked: number): number {
    const rotated = (masked - MASK_DELTA) >>> 0;
    return ((rotated >>> 17) | (rotated << 15)) >>> 0;
}

/** One TFRecord file holding `records`, in order. */
export function writeTfRecords(records: readonly Uint8Array[]): Buffer {
    const total = records.reduce((sum, r) => sum + r.length + RECORD_OVERHEAD_BYTES, 0);
    const out = Buffer.alloc(total);
    let at = 0;
    for (const record of records) {
        const length = out.subarray(at, at + LENGTH_BYTES);
        length.writeBigUInt64LE(BigInt(record.length));
        out.writeUInt32LE(maskCrc(crc32c(length)), at + LENGTH_BYTES);
        at += LENGTH_BYTES + CRC_BYTES;
        out.set(record, at);
        at += record.length;
        out.writeUInt32LE(maskCrc(crc32c(record)), at);
        at += CRC_BYTES;
    }
    return out;
}

/** Why a TFRecord file cannot be read past a record, at the record's index (0-based) and the byte offset where it starts. */
export interface TfRecordProblem {
    kind: "truncated" | "length-crc" | "data-crc";
    index: number;
    offset: number;
    /** TensorFlow's own words for it (its reader's DATA_LOSS message), with the offset. */
    message: string;
}

export interface TfRecordRead {
    /** The records read before the first problem (all of them when there is none); views into the input. */
    records: Buffer[];
    problem?: TfRecordProblem;
    /**
     * Bytes after the last record too few to hold a header (under 12). TensorFlow's reader takes them for the
     * end of the file, without an error (its short read of a header is OUT_OF_RANGE, i.e. end of file).
     */
    trailingBytes?: number;
}

/**
 * Reads every record of a TFRecord file, checking both CRCs of each; stops at the first problem, as
 * TensorFlow's SequentialRecordReader does (a bad record fails the read, the rest is never reached). The
 * messages are TensorFlow's (tensorflow/core/lib/io/record_reader.cc), offsets included: a bad data CRC
 * names the data's offset, everything else the record's.
 */
export function readTfRecords(file: Uint8Array): TfRecordRead {
    const data = Buffer.from(file.buffer, file.byteOffset, file.byteLength);
    const records: Buffer[] = [];
    let at = 0;
    while (at < data.length) {
        const index = records.length;
        const problem = (kind: TfRecordProblem["kind"], words: string, reported = at): TfRecordRead =>
            ({ records, problem: { kind, index, offset: at, message: `${words} at ${reported}` } });
        if (at + LENGTH_BYTES + CRC_BYTES > data.length) {
            return { records, trailingBytes: data.length - at };
        }
        const lengthBytes = data.subarray(at, at + LENGTH_BYTES);
        if (unmaskCrc(data.readUInt32LE(at + LENGTH_BYTES)) !== crc32c(lengthBytes)) {
            return problem("length-crc", "corrupted record");
        }
        const length = lengthBytes.readBigUInt64LE();
        const start = at + LENGTH_BYTES + CRC_BYTES;
        if (length > BigInt(data.length - start - CRC_BYTES)) {
            return problem("truncated", "truncated record");
        }
        const end = start + Number(length);
        const record = data.subarray(start, end);
        if (unmaskCrc(data.readUInt32LE(end)) !== crc32c(record)) {
            return problem("data-crc", "corrupted record", start);
        }
        records.push(record);
        at = end + CRC_BYTES;
    }
    return { records };
}
