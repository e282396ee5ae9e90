import * as assert from "assert";
import * as fs from "fs";
import * as path from "path";
import { ROOT, suiteEnvironment } from "../../support/e2eProject";

/** The settings the environment program reads, with their defaults, from its own source. */
function programSettings(): { names: string[]; ports: Record<string, number>; strings: Record<string, string> } {
    const source = fs.readFileSync(path.join(ROOT, "tools/e2e-env/go/e2e-env/internal/configs/configs.go"), "utf8");
    const fromEnv = source.slice(source.indexOf("func FromEnv("), source.indexOf("\n}\n", source.indexOf("func FromEnv(")));
    const names = [...new Set([...fromEnv.matchAll(/"(TFS_E2E_[A-Z_]+)"/g)].map((m) => m[1]))];
    const ports = Object.fromEntries([...fromEnv.matchAll(/port\("(TFS_E2E_[A-Z_]+)", ([0-9]+)\)/g)].map((m) => [m[1], Number(m[2])]));
    const strings = Object.fromEntries([...fromEnv.matchAll(/str\("(TFS_E2E_[A-Z_]+)", "([^"]+)"\)/g)].map((m) => [m[1], m[2]]));
    return { names, ports, strings };
}

/** Every port an environment listens on: the settings, the etcd peer port (+1), the kubelet's healthz (-2), the login registry. */
function listeningPorts(p: Record<string, number>): number[] {
    const login = p.TFS_E2E_LOGIN_REGISTRY_PORT ?? p.TFS_E2E_REGISTRY_PORT + 1;
    return [...Object.entries(p).filter(([k]) => k !== "TFS_E2E_LOGIN_REGISTRY_PORT").map(([, v]) => v), p.TFS_E2E_ETCD_PORT + 1, p.TFS_E2E_KUBELET_PORT - 2, login];
}

describe("the end-to-end suite's own environment", () => {
    const suite = suiteEnvironment("/cache");
    const program = programSettings();

    it("sets every setting that keeps two environments apart (all the program reads but the shared cache, the LB mode and apt)", () => {
        assert.ok(program.names.length >= 14, `read ${program.names.join(", ")}`);
        const shared = ["TFS_E2E_CACHE", "TFS_E2E_LB_MODE", "TFS_E2E_NO_APT"];
        assert.deepStrictEqual(program.names.filter((n) => !shared.includes(n) && !(n in suite)), []);
        assert.strictEqual(suite.TFS_E2E_STATE, "/cache/suite-state", "its own state folder, beside the user's /cache/state");
    });

    it("shares no port, bridge, cgroup, pod subnet or load-balancer range with the default environment (the user's)", () => {
        const suitePorts = Object.fromEntries(Object.keys(program.ports).map((k) => [k, Number(suite[k])]));
        const clash = listeningPorts(suitePorts).filter((p) => listeningPorts(program.ports).includes(p));
        assert.deepStrictEqual(clash, []);
        for (const [name, value] of Object.entries(program.strings)) {
            assert.notStrictEqual(suite[name], value, name);
        }
        assert.ok(!suite.TFS_E2E_POD_SUBNET.startsWith(program.strings.TFS_E2E_POD_SUBNET.split(".").slice(0, 3).join(".") + "."), "another /24");
    });
});
