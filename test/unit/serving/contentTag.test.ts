import * as assert from "assert";
import { CONTENT_TAG_WILDCARD, contentTag, isContentTag } from "../../../serving/contentTag";

describe("serving/contentTag", () => {
    const digest = "0123456789abcdef".repeat(4);

    it("tags an image ctx- and the first 16 hex digits of its context digest", () => {
        assert.strictEqual(contentTag(digest), "ctx-0123456789abcdef");
        assert.ok(isContentTag(contentTag(digest)));
    });

    it("refuses anything but a 64-digit lowercase hex digest", () => {
        for (const bad of ["", digest.slice(1), digest.toUpperCase(), `sha256:${digest}`]) {
            assert.throws(() => contentTag(bad), /64 lowercase hex digits/, bad);
        }
    });

    it("tells content tags from tags a person pushes", () => {
        for (const other of ["latest", "v1.2", "ctx-0123", "ctx-0123456789ABCDEF", "0123456789abcdef"]) {
            assert.ok(!isContentTag(other), other);
        }
    });

    it("has a registry wildcard that matches every content tag and no release tag", () => {
        const matches = (tag: string) => new RegExp(`^${CONTENT_TAG_WILDCARD.replace(/[.+?^${}()|[\]\\-]/g, "\\$&").replace(/\*/g, ".*")}$`).test(tag);
        assert.ok(matches(contentTag(digest)));
        assert.ok(!matches("latest"));
        assert.ok(!matches("v1.2"));
    });
});
