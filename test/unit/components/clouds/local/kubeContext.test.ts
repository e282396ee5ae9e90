/** A local stack's `kubeContext`, checked against the kubeconfig files the Kubernetes provider would read. */
import * as assert from "assert";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { kubeContextIssues } from "../../../../../components/clouds/local/kubeContext";

const kubeconfig = (...contexts: string[]): string => [
    "apiVersion: v1", "kind: Config", `current-context: ${contexts[0] ?? '""'}`,
    "clusters:", ...contexts.map((c) => `- name: ${c}\n  cluster: {server: "https://127.0.0.1:6443"}`),
    "contexts:", ...contexts.map((c) => `- name: ${c}\n  context: {cluster: ${c}, user: ${c}}`),
    "users:", ...contexts.map((c) => `- name: ${c}\n  user: {token: t}`), "",
].join("\n");

describe("local cloud: kubeContext against the kubeconfig", () => {
    let dir: string;
    const read = (file: string) => (fs.existsSync(file) ? fs.readFileSync(file, "utf8") : undefined);
    const file = (name: string, text: string): string => {
        fs.writeFileSync(path.join(dir, name), text);
        return path.join(dir, name);
    };

    beforeEach(() => { dir = fs.mkdtempSync(path.join(os.tmpdir(), "tfs-kube-context-")); });
    afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

    it("refuses a context the stack's kubeconfig does not hold, naming the file and its contexts", () => {
        const config = file("dev.yaml", kubeconfig("kind-dev", "kind-e2e"));
        const issues = kubeContextIssues({ kubeconfig: config, context: "kind-prod" }, {}, dir, read);
        assert.strictEqual(issues.length, 1);
        assert.strictEqual(issues[0].key, "kubeContext");
        assert.strictEqual(issues[0].value, "kind-prod");
        assert.match(issues[0].expected, new RegExp(`^is not a context of tf-serving:kubeconfig \\(${config.replace(/[.]/g, "\\.")}\\), which has "kind-dev", "kind-e2e": `));
        assert.match(issues[0].expected, /kubectl config get-contexts/);
        assert.deepStrictEqual(kubeContextIssues({ kubeconfig: config, context: "kind-e2e" }, {}, dir, read), []);
    });

    it("reads KUBECONFIG's files merged, else ~/.kube/config, as the provider and kubectl do", () => {
        const a = file("a", kubeconfig("kind-a"));
        const b = file("b", kubeconfig("kind-b"));
        const env = { KUBECONFIG: [a, path.join(dir, "missing"), b].join(path.delimiter) };
        assert.deepStrictEqual(kubeContextIssues({ context: "kind-b" }, env, dir, read), []);
        assert.match(kubeContextIssues({ context: "kind-c" }, env, dir, read)[0].expected, /^is not a context of KUBECONFIG \(.*\), which has "kind-a", "kind-b"/);
        fs.mkdirSync(path.join(dir, ".kube"));
        file(path.join(".kube", "config"), kubeconfig("minikube"));
        assert.deepStrictEqual(kubeContextIssues({ context: "minikube" }, {}, dir, read), []);
        assert.match(kubeContextIssues({ context: "kind-c" }, {}, dir, read)[0].expected, new RegExp(`of ${path.join(dir, ".kube", "config").replace(/[.]/g, "\\.")}, which has "minikube"`));
    });

    it("refuses any context of a kubeconfig with none", () => {
        const config = file("empty.yaml", "apiVersion: v1\nkind: Config\n");
        assert.match(kubeContextIssues({ kubeconfig: config, context: "kind-dev" }, {}, dir, read)[0].expected, /which has no contexts/);
    });

    it("says nothing without a context, without a readable kubeconfig (a credential problem, reported elsewhere) or of one that is not YAML", () => {
        const config = file("dev.yaml", kubeconfig("kind-dev"));
        assert.deepStrictEqual(kubeContextIssues({ kubeconfig: config }, {}, dir, read), []);
        assert.deepStrictEqual(kubeContextIssues({ kubeconfig: path.join(dir, "nope"), context: "x" }, {}, dir, read), []);
        assert.deepStrictEqual(kubeContextIssues({ context: "x" }, {}, dir, read), [], "no ~/.kube/config");
        assert.deepStrictEqual(kubeContextIssues({ kubeconfig: file("bad.yaml", "contexts: [\n"), context: "x" }, {}, dir, read), []);
    });
});
