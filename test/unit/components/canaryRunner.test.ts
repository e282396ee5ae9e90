/**
 * Where the canary's dynamic provider finds its runner, and what its delete does when it cannot
 * retire the canary. The engine runs a delete with the provider serialized in the state, by
 * whichever checkout last wrote it, so the serialized provider must name no file of that checkout:
 * it finds the runner from the folder it runs in (`runnerLocation`, a pure function of what the disk
 * holds), and a delete that retired nothing fails instead of passing with the canary left running.
 */
import * as assert from "assert";
import * as os from "os";
import * as path from "path";
import * as pulumi from "@pulumi/pulumi";
import { RunnerProbe, canaryProvider, retireFailure, runnerLocation } from "../../../components/canary/canaryRelease";

const REPO = path.resolve(__dirname, "../../..");

/** A disk of `files` (paths) and `packages` (folder -> the name in its package.json). */
function disk(files: string[], packages: Record<string, string>): RunnerProbe {
    return { packageName: (dir) => packages[dir], exists: (file) => files.includes(file) };
}

describe("the canary's runner, found where the provider runs", () => {
    it("in a checkout: its sources, with its own tsconfig.json (the program runs the sources, not an old build beside them)", () => {
        const probe = disk(["/home/alice/tf-serving/components/canary/release.ts", "/home/alice/tf-serving/dist/components/canary/release.js"],
            { "/home/alice/tf-serving": "tf-serving" });
        assert.deepStrictEqual(runnerLocation("/home/alice/tf-serving", probe),
            { file: "/home/alice/tf-serving/components/canary/release.ts", tsconfig: "/home/alice/tf-serving/tsconfig.json" });
    });

    it("in a project folder inside a checkout: that checkout's sources", () => {
        const probe = disk(["/ci/_work/tf-serving/components/canary/release.ts"], { "/ci/_work/tf-serving": "tf-serving" });
        assert.deepStrictEqual(runnerLocation("/ci/_work/tf-serving/.tfs/project", probe),
            { file: "/ci/_work/tf-serving/components/canary/release.ts", tsconfig: "/ci/_work/tf-serving/tsconfig.json" });
    });

    it("with the packed library installed in the project: its compiled runner, no ts-node", () => {
        const probe = disk(["/srv/app/node_modules/tf-serving/dist/components/canary/release.js"],
            { "/srv/app": "my-models", "/srv/app/node_modules/tf-serving": "tf-serving" });
        assert.deepStrictEqual(runnerLocation("/srv/app", probe), { file: "/srv/app/node_modules/tf-serving/dist/components/canary/release.js" });
    });

    it("with a checkout linked into node_modules and never built: its sources", () => {
        const probe = disk(["/srv/app/node_modules/tf-serving/components/canary/release.ts"], { "/srv/app/node_modules/tf-serving": "tf-serving" });
        assert.deepStrictEqual(runnerLocation("/srv/app", probe),
            { file: "/srv/app/node_modules/tf-serving/components/canary/release.ts", tsconfig: "/srv/app/node_modules/tf-serving/tsconfig.json" });
    });

    it("the nearest wins: a project's own install over the checkout it sits in", () => {
        const probe = disk(["/c/tf-serving/components/canary/release.ts", "/c/tf-serving/app/node_modules/tf-serving/dist/components/canary/release.js"],
            { "/c/tf-serving": "tf-serving", "/c/tf-serving/app/node_modules/tf-serving": "tf-serving" });
        assert.deepStrictEqual(runnerLocation("/c/tf-serving/app", probe), { file: "/c/tf-serving/app/node_modules/tf-serving/dist/components/canary/release.js" });
    });

    it("passes over another package and a tf-serving folder without the runner", () => {
        const probe = disk(["/w/components/canary/release.ts", "/w/tf/dist/components/canary/release.js"],
            { "/w": "tf-serving", "/w/tf": "tf-serving-cli", "/w/tf/node_modules/tf-serving": "tf-serving" });
        assert.deepStrictEqual(runnerLocation("/w/tf", probe), { file: "/w/components/canary/release.ts", tsconfig: "/w/tsconfig.json" });
    });

    it("none: one line naming the folder, where it looked and what to do", () => {
        const found = runnerLocation("/home/bob/gone/../project", disk([], { "/home/bob/project": "my-models" }));
        assert.ok("missing" in found);
        assert.ok(!found.missing.includes("\n"));
        assert.match(found.missing, /^no tf-serving checkout \(components\/canary\/release\.ts\) or installed library \(node_modules\/tf-serving\/dist\/components\/canary\/release\.js\) in \/home\/bob\/project or a folder above it/);
        assert.match(found.missing, /run pulumi in the project's folder, inside a checkout of tf-serving or with tf-serving installed there \(docs\/guides\/canary\.md#where-the-release-runs\)$/);
    });
});

describe("a delete that could not retire the canary", () => {
    const props = { model: "half-plus-two", canary: "half-plus-two-canary", namespace: "tf-serving" };
    const refused = Object.assign(new Error("request to https://10.0.0.1/apis/apps/v1/... failed, reason: connect ECONNREFUSED\n    at ..."), { code: "ECONNREFUSED" });
    const forbidden = Object.assign(new Error("HTTP-Code: 403\nMessage: deployments.apps is forbidden"), { code: 403 });

    it("fails, naming the Deployment that may still run and what to do", () => {
        const failure = retireFailure(props, refused, {});
        assert.ok("error" in failure);
        assert.strictEqual(failure.error, "canary of half-plus-two: not retired (request to https://10.0.0.1/apis/apps/v1/... failed, reason: connect ECONNREFUSED): " +
            "the canary Deployment half-plus-two-canary in tf-serving may still run, and the routes may still send it traffic; run the update again once the cluster answers, " +
            "or, if the cluster is gone for good, with PULUMI_K8S_DELETE_UNREACHABLE=true (docs/guides/canary.md#where-the-release-runs)");
    });

    it("passes with nothing retired only for a cluster that did not answer, under the Kubernetes provider's own switch", () => {
        assert.deepStrictEqual(retireFailure(props, refused, { PULUMI_K8S_DELETE_UNREACHABLE: "true" }), {
            line: "canary of half-plus-two: nothing retired, the cluster did not answer (request to https://10.0.0.1/apis/apps/v1/... failed, reason: connect ECONNREFUSED); " +
                "PULUMI_K8S_DELETE_UNREACHABLE=true lets the canary leave the state",
        });
        assert.ok("error" in retireFailure(props, refused, { PULUMI_K8S_DELETE_UNREACHABLE: "1" }), "the provider's own spelling only");
    });

    it("a cluster that answered (403) fails whatever the switch says, without offering it", () => {
        const failure = retireFailure(props, forbidden, { PULUMI_K8S_DELETE_UNREACHABLE: "true" });
        assert.ok("error" in failure);
        assert.match(failure.error, /^canary of half-plus-two: not retired \(HTTP-Code: 403\): .*run the update again once the cluster answers \(docs/);
        assert.ok(!failure.error.includes("PULUMI_K8S_DELETE_UNREACHABLE"));
    });
});

describe("the provider as the engine stores it", function () {
    this.timeout(60_000);
    let text = "";
    before(async () => {
        // As `pulumi.dynamic.Resource` serializes it (@pulumi/pulumi dynamic/index.js, serializeProvider).
        const provider = canaryProvider;
        text = (await pulumi.runtime.serializeFunction(() => provider, { allowSecrets: true })).text;
    });

    it("names no file of the checkout that serialized it", () => {
        assert.ok(text.includes("components/canary/release.ts"), "the runner is named relative to a package folder");
        for (const absolute of [REPO, os.homedir(), os.tmpdir()]) {
            assert.ok(!text.includes(absolute), `the serialized provider holds ${absolute}`);
        }
        assert.deepStrictEqual(text.match(/["'`]\/[^"'`\s]*\//g) ?? [], [], "no absolute path in any string");
    });

    it("requires no module but Node's own", () => {
        assert.deepStrictEqual(text.match(/\brequire\(\s*["'][^"']+["']\s*\)/g) ?? [], []);
    });
});
