import * as assert from "assert";
import { crc32c, maskCrc, readTfRecords, RECORD_OVERHEAD_BYTES, unmaskCrc, writeTfRecords } from "../../../model/tfRecord";

describe("tfRecord", () => {
    describe("crc32c", () => {
        // The check value of CRC-32C (iSCSI) and RFC 3720's all-zero test vector.
        it("gives the Castagnoli check value for \"123456789\"", () => {
            assert.strictEqual(crc32c(Buffer.from("123456789", "ascii")), 0xe3069283);
        });

        it("gives RFC 3720's value for 32 zero bytes", () => {
            assert.strictEqual(crc32c(Buffer.alloc(32)), 0x8a9136aa);
        });

        it("is 0 for no bytes", () => {
            assert.strictEqual(crc32c(new Uint8Array(0)), 0);
        });
    });

    describe("maskCrc", () => {
        it("rotates right by 15 and adds TensorFlow's constant, and unmasks back", () => {
            // ((0xe3069283 >>> 15) | (0xe3069283 << 17)) = 0x2507c60d; + 0xa282ead8 = 0xc78ab0e5 (mod 2^32).
            assert.strictEqual(maskCrc(0xe3069283), 0xc78ab0e5);
            for (const crc of [0, 1, 0xffffffff, 0x8a9136aa]) {
                assert.strictEqual(unmaskCrc(maskCrc(crc)), crc);
            }
        });
    });

    describe("writeTfRecords and readTfRecords", () => {
        const records = [Buffer.from("first"), Buffer.alloc(0), Buffer.from("a third, longer record")];

        it("frames each record with its length, the length's masked CRC, the data and the data's masked CRC", () => {
            const file = writeTfRecords([Buffer.from("123456789")]);
            assert.strictEqual(file.length, 9 + RECORD_OVERHEAD_BYTES);
            assert.strictEqual(file.readBigUInt64LE(0), 9n);
            assert.strictEqual(file.readUInt32LE(8), maskCrc(crc32c(file.subarray(0, 8))));
            assert.strictEqual(file.subarray(12, 21).toString(), "123456789");
            assert.strictEqual(file.readUInt32LE(21), 0xc78ab0e5);
        });

        it("reads back what it wrote", () => {
            const read = readTfRecords(writeTfRecords(records));
            assert.strictEqual(read.problem, undefined);
            assert.deepStrictEqual(read.records.map((r) => r.toString()), records.map((r) => r.toString()));
        });

        it("names the record and offset of a flipped data byte", () => {
            const file = writeTfRecords(records);
            const third = 2 * RECORD_OVERHEAD_BYTES + records[0].length + records[1].length;
            file[third + 12 + 3] ^= 0x01;
            const read = readTfRecords(file);
            // TensorFlow names the data's offset for a bad data CRC (record_reader.cc reads the data at offset + 12).
            assert.deepStrictEqual(read.problem, { kind: "data-crc", index: 2, offset: third, message: `corrupted record at ${third + 12}` });
            assert.strictEqual(read.records.length, 2);
        });

        it("names a flipped length byte as a bad length CRC", () => {
            const file = writeTfRecords(records);
            const second = RECORD_OVERHEAD_BYTES + records[0].length;
            file[second] ^= 0x40;
            assert.deepStrictEqual(readTfRecords(file).problem?.kind, "length-crc");
            assert.deepStrictEqual(readTfRecords(file).problem?.index, 1);
        });

        it("names a record cut short in its data at the record's offset", () => {
            const file = writeTfRecords(records);
            const last = 2 * RECORD_OVERHEAD_BYTES + records[0].length + records[1].length;
            for (const cut of [last + 12, file.length - 1]) {
                const problem = readTfRecords(file.subarray(0, cut)).problem;
                assert.deepStrictEqual(problem, { kind: "truncated", index: 2, offset: last, message: `truncated record at ${last}` }, `cut at ${cut}`);
            }
        });

        it("takes fewer bytes than a header after the last record for the end, as TensorFlow does, and counts them", () => {
            const file = writeTfRecords(records);
            const last = 2 * RECORD_OVERHEAD_BYTES + records[0].length + records[1].length;
            const read = readTfRecords(file.subarray(0, last + 11));
            assert.deepStrictEqual([read.records.length, read.problem, read.trailingBytes], [2, undefined, 11]);
        });

        it("reads an empty file as no records", () => {
            assert.deepStrictEqual(readTfRecords(Buffer.alloc(0)), { records: [] });
        });
    });
});
