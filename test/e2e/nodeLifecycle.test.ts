/**
 * The real node's footprint on the host: a second environment (its own state folder, ports, pod
 * subnet, bridge and cgroup, beside the suite's) starts, runs a pod, stops; then nothing of it is
 * left: no process, no mount in any mount namespace, no bridge or veth, no cgroup, and the host's
 * kernel settings never changed (the kubelet's writes went to the node's stand-in files).
 */
import * as assert from "assert";
import { execFileSync } from "child_process";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { ROOT } from "../support/e2eProject";

const TUNABLES = ["vm/overcommit_memory", "vm/panic_on_oom", "kernel/panic", "kernel/panic_on_oops", "kernel/keys/root_maxkeys", "kernel/keys/root_maxbytes"];
const BRIDGE = "tfse2e9";
const CGROUP = "tfs-e2e-lifecycle";

const sysctls = () => Object.fromEntries(TUNABLES.map((t) => [t, fs.readFileSync(path.join("/proc/sys", t), "utf8").trim()]));

/** Every process whose command line or mounts name `needle`, as "pid: command". */
function processesNaming(needle: string): string[] {
    const found: string[] = [];
    for (const pid of fs.readdirSync("/proc").filter((p) => /^\d+$/.test(p) && Number(p) !== process.pid)) {
        try {
            const cmdline = fs.readFileSync(`/proc/${pid}/cmdline`, "utf8").replace(/\0/g, " ");
            if (cmdline.includes(needle)) {
                found.push(`${pid}: ${cmdline.slice(0, 120)}`);
                continue;
            }
            if (fs.readFileSync(`/proc/${pid}/mountinfo`, "utf8").includes(needle)) {
                found.push(`${pid} (mounts under ${needle}): ${cmdline.slice(0, 120)}`);
            }
        } catch {
            // gone meanwhile
        }
    }
    return found;
}

const links = (): { ifname: string; master?: string; link_type: string; info_kind?: string }[] =>
    JSON.parse(execFileSync("ip", ["-j", "-d", "link", "show"], { encoding: "utf8" })).map((l: any) => ({ // eslint-disable-line @typescript-eslint/no-explicit-any
        ifname: l.ifname, master: l.master, link_type: l.link_type, info_kind: l.linkinfo?.info_kind,
    }));

function cgroupDirs(): string[] {
    const mounts = fs.readFileSync("/proc/self/mountinfo", "utf8").split("\n")
        .filter((l) => / - cgroup2? /.test(l)).map((l) => l.split(" ")[4]);
    return mounts.map((m) => path.join(m, CGROUP)).filter((d) => fs.existsSync(d));
}

describe("the real node leaves nothing behind (a second environment: start, run a pod, stop)", function () {
    this.timeout(20 * 60 * 1000);
    const state = fs.mkdtempSync(path.join(os.tmpdir(), "tfs-e2e-lifecycle-"));
    const envB: NodeJS.ProcessEnv = {
        ...process.env,
        TFS_E2E_STATE: state, TFS_E2E_NO_APT: "1",
        TFS_E2E_API_PORT: "26443", TFS_E2E_ETCD_PORT: "22379", TFS_E2E_REGISTRY_PORT: "25001",
        TFS_E2E_KCM_PORT: "20257", TFS_E2E_SCHEDULER_PORT: "20259", TFS_E2E_KWOK_PORT: "20247",
        TFS_E2E_KUBELET_PORT: "20350", TFS_E2E_POD_SUBNET: "10.213.9.0/24", TFS_E2E_NODE_BRIDGE: BRIDGE,
        TFS_E2E_NODE_CGROUP: `/${CGROUP}`, TFS_E2E_LB_IP_RANGE: "127.0.109.0/24",
        TFS_E2E_GATEWAY_ADDRESS: "127.0.119.1", TFS_E2E_GATEWAY_ADMIN_PORT: "29092", TFS_E2E_METRICS_PORT: "29093",
    };
    const script = path.join(ROOT, "scripts", "e2e-env");
    const kubectl = (...args: string[]) => execFileSync("kubectl",
        ["--kubeconfig", path.join(state, "kubeconfig"), ...args], { encoding: "utf8", timeout: 30_000, stdio: ["ignore", "pipe", "pipe"] });

    after(() => {
        execFileSync(script, ["stop"], { env: envB, stdio: "ignore", timeout: 5 * 60 * 1000 });
        fs.rmSync(state, { recursive: true, force: true });
    });

    it("runs a pod on its own bridge, keeps the kubelet's kernel settings off the host, and stops without a trace", async () => {
        const hostBefore = sysctls();
        const runContainerdBefore = fs.existsSync("/run/containerd");
        const vethsBefore = new Set(links().filter((l) => l.info_kind === "veth").map((l) => l.ifname));

        const t0 = Date.now();
        execFileSync(script, ["start"], { env: envB, stdio: ["ignore", "inherit", "inherit"], timeout: 10 * 60 * 1000 });
        console.log(`      second environment started in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
        const base = `127.0.0.1:${envB.TFS_E2E_REGISTRY_PORT}/tensorflow/serving:stand-in`;
        const pod = {
            apiVersion: "v1", kind: "Pod", metadata: { name: "sleeper", namespace: "default" },
            spec: { nodeName: "tfs-e2e-cpu", terminationGracePeriodSeconds: 1, containers: [{ name: "sleep", image: base, command: ["/bin/sleep", "3600"] }] },
        };
        execFileSync("kubectl", ["--kubeconfig", path.join(state, "kubeconfig"), "apply", "-f", "-"], { input: JSON.stringify(pod), stdio: ["pipe", "ignore", "inherit"] });
        let ip = "";
        for (let i = 0; i < 240 && !ip; i++) {
            const p = JSON.parse(kubectl("get", "pod", "sleeper", "-o", "json"));
            ip = p.status.phase === "Running" ? p.status.podIP : "";
            if (!ip) {
                await new Promise((r) => setTimeout(r, 500));
            }
        }
        assert.match(ip, /^10\.213\.9\./, "the pod runs with an address of the second environment's pod subnet");
        const bridge = links().find((l) => l.ifname === BRIDGE);
        assert.ok(bridge, `bridge ${BRIDGE} exists while the node runs`);
        assert.ok(links().some((l) => l.info_kind === "veth" && l.master === BRIDGE), "the pod's veth is on the bridge");
        assert.ok(cgroupDirs().length > 0, "the node's cgroup root exists while it runs");
        assert.deepStrictEqual(sysctls(), hostBefore, "the host's kernel settings did not change");
        const standIn = fs.readFileSync(path.join(state, "node", "sysctl", "vm.overcommit_memory"), "utf8").trim();
        assert.strictEqual(standIn, "1", "the kubelet wrote vm.overcommit_memory = 1, into the node's stand-in file");

        const t1 = Date.now();
        execFileSync(script, ["stop"], { env: envB, stdio: ["ignore", "inherit", "inherit"], timeout: 5 * 60 * 1000 });
        console.log(`      second environment stopped (with its pod) in ${((Date.now() - t1) / 1000).toFixed(1)} s`);

        assert.deepStrictEqual(processesNaming(state), [], "no process and no mount (in any mount namespace) of the stopped environment");
        assert.ok(!links().some((l) => l.ifname === BRIDGE), `bridge ${BRIDGE} removed`);
        // (A veth on another bridge belongs to someone else, such as the suite's own node.)
        const strayVeths = links().filter((l) => l.info_kind === "veth" && !vethsBefore.has(l.ifname) && (!l.master || l.master === BRIDGE));
        assert.deepStrictEqual(strayVeths, [], "no veth (so no pod network namespace) left");
        assert.deepStrictEqual(cgroupDirs(), [], "no cgroup left");
        assert.strictEqual(fs.existsSync("/run/containerd"), runContainerdBefore, "nothing made under the host's /run");
        assert.deepStrictEqual(sysctls(), hostBefore, "the host's kernel settings are as before");
    });
});
