/**
 * A stack updated from a workstation and then from CI runs the program in two checkouts at
 * different paths: every resource input must be the same in both, or the second update rebuilds,
 * re-pushes or replaces. `tfs plan` records exactly the inputs `pulumi up` sends.
 */
import * as assert from "assert";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { PlanResult, planStack } from "../../../ops/plan";
import { fixtureModelDir } from "../../support/fixtures";

/* eslint-disable @typescript-eslint/no-explicit-any */
const ROOT = path.resolve(__dirname, "../../..");

const STACK_FILE = [
    "config:",
    "  tf-serving:modelPath: models/half_plus_two",
    "  tf-serving:modelName: half-plus-two",
    "  tf-serving:publicEndpoint: true",
    "  tf-serving:kubeconfig: clusters/dev.yaml",
    "  tf-serving:registry:",
    "    server: registry.internal:5000",
    "    repositoryPrefix: team",
    "    username: ci",
    "    password: not-a-secret-in-this-test",
    "",
].join("\n");

/** A checkout of a project using this repository's program, at `dir`. */
function checkout(dir: string): string {
    fs.mkdirSync(dir, { recursive: true });
    fs.copyFileSync(path.join(ROOT, "Pulumi.yaml"), path.join(dir, "Pulumi.yaml"));
    fs.writeFileSync(path.join(dir, "Pulumi.ci.yaml"), STACK_FILE);
    fs.cpSync(path.join(fixtureModelDir("half_plus_two_cpu"), "00000123"), path.join(dir, "models", "half_plus_two", "00000123"), { recursive: true });
    fs.mkdirSync(path.join(dir, "clusters"));
    fs.writeFileSync(path.join(dir, "clusters", "dev.yaml"), "apiVersion: v1\nkind: Config\n");
    return dir;
}

/** What the engine compares between two runs: each resource's identity and inputs. */
function registered(plan: PlanResult) {
    return plan.resources.map((r) => ({ type: r.type, name: r.name, parent: r.parent, inputs: r.inputs }));
}

describe("tfs plan from two checkouts at different paths", () => {
    let base: string;
    let laptop: string;
    let ci: string;
    let plans: PlanResult[];

    before(async function () {
        this.timeout(120_000);
        base = fs.mkdtempSync(path.join(os.tmpdir(), "tfs-checkouts-"));
        laptop = checkout(path.join(base, "home", "alice", "tf-serving"));
        ci = checkout(path.join(base, "runner", "_work", "tf-serving", "tf-serving"));
        plans = [await planStack(laptop, "ci"), await planStack(ci, "ci")];
    });

    after(() => fs.rmSync(base, { recursive: true, force: true }));

    it("registers the same resources with identical inputs", () => {
        assert.ok(plans[0].resources.length > 5);
        assert.deepStrictEqual(registered(plans[1]), registered(plans[0]));
    });

    it("puts no path of either checkout into any input", () => {
        for (const plan of plans) {
            const text = JSON.stringify(plan.resources.map((r) => r.rawInputs));
            for (const dir of [base, laptop, ci, os.homedir()]) {
                assert.ok(!text.includes(dir), `an input holds ${dir}: ${text.slice(Math.max(0, text.indexOf(dir) - 200), text.indexOf(dir) + 200)}`);
            }
        }
    });

    it("names the build context and Dockerfile relative to the project, where the stage really is", () => {
        const image = plans[0].resources.find((r) => r.type === "docker:index/image:Image")!.inputs as any;
        assert.deepStrictEqual(image.build, {
            context: ".tfs/build/ci/half-plus-two",
            dockerfile: ".tfs/build/ci/half-plus-two/Dockerfile",
            platform: "linux/amd64",
        });
        assert.match(image.imageName, /^registry\.internal:5000\/team\/half-plus-two:ctx-[0-9a-f]{16}$/);
        for (const dir of [laptop, ci]) {
            assert.match(fs.readFileSync(path.join(dir, image.build.dockerfile), "utf8"), /^# /, `staged in ${dir}`);
        }
    });

    it("hands the Kubernetes provider the kubeconfig path as the stack file writes it", () => {
        const provider = plans[0].resources.find((r) => r.type === "pulumi:providers:kubernetes")!.inputs as any;
        assert.strictEqual(provider.kubeconfig, "clusters/dev.yaml");
    });
});
