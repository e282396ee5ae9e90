/**
 * A registry that refuses anonymous pulls (Debian's docker-registry with htpasswd auth, started by
 * this test on the port the environment keeps for it, `TFS_E2E_LOGIN_REGISTRY`): the stack's
 * `registry.username`/`password` log the build in to push, and the pods pull with a
 * `kubernetes.io/dockerconfigjson` Secret made from the same login. The state holds that login only
 * encrypted.
 */
import * as assert from "assert";
import * as path from "path";
import { E2eProject, MODEL, ROOT, createProject, env, kubectl } from "../support/e2eProject";
import { LocalRegistry, TEST_LOGIN, startRegistry } from "../support/registry";
import { predict } from "../support/traffic";
import { runCli } from "../support/cli";

describe("a private registry: the pods pull with the stack's registry login", function () {
    this.timeout(15 * 60 * 1000);
    let registry: LocalRegistry | undefined;
    let project: E2eProject;
    const output: string[] = [];
    const onOutput = (line: string) => { output.push(line); };

    before(async () => {
        const [, port] = env("TFS_E2E_LOGIN_REGISTRY").split(":");
        registry = await startRegistry({ port: Number(port), login: true });
        project = await createProject();
        project.setConfig({
            replicas: 1,
            registry: { server: registry.host, repositoryPrefix: `e2e-${project.run}`, username: TEST_LOGIN.username, password: TEST_LOGIN.password },
        });
    });

    after(async () => {
        if (process.env.TFS_E2E_KEEP !== "1") {
            await project?.dispose(onOutput);
        }
        // The registry is this test's child: it ends with the test, whatever TFS_E2E_KEEP says.
        await registry?.stop();
    });

    afterEach(function () {
        if (this.currentTest?.state === "failed") {
            console.error(output.slice(-60).join(""));
        }
        output.length = 0;
    });

    it("up: pushed with the login, pulled with the pull Secret, Ready and serving; the policy pack passes it", async () => {
        const up = await project.pulumi.up({ policyPacks: [path.join(ROOT, "policy")] });
        assert.strictEqual(up.summary.result, "succeeded");
        const imageRef = up.outputs.imageRef as string;
        const [repository, digest] = imageRef.slice(registry!.host.length + 1).split("@");
        assert.ok(imageRef.startsWith(`${registry!.host}/`), imageRef);
        // Without the login the registry serves nothing: the kubelet can only have pulled with the Secret.
        const anonymous = await fetch(`${registry!.url}/v2/${repository}/manifests/${digest}`);
        assert.strictEqual(anonymous.status, 401, "the registry refuses an anonymous pull");
        assert.deepStrictEqual((await registry!.manifest(repository, digest)).schemaVersion, 2, "the pushed digest is there for the login");

        const d = kubectl("get", "deployment", MODEL, "-n", project.namespace);
        const [{ name: secretName }] = d.spec.template.spec.imagePullSecrets;
        const secret = kubectl("get", "secret", secretName, "-n", project.namespace);
        assert.strictEqual(secret.type, "kubernetes.io/dockerconfigjson");
        const auths = JSON.parse(Buffer.from(secret.data[".dockerconfigjson"], "base64").toString("utf8")).auths;
        assert.deepStrictEqual(Object.keys(auths), [registry!.host]);
        assert.strictEqual(auths[registry!.host].username, TEST_LOGIN.username);

        assert.deepStrictEqual(d.spec.template.spec.imagePullSecrets, [{ name: secretName }], "one pull Secret");
        assert.strictEqual(d.spec.template.spec.containers[0].image, imageRef);
        assert.strictEqual(d.status.readyReplicas, 1, "the pod pulled the image and turned Ready");
        assert.deepStrictEqual(await predict(up.outputs.restUrl as string, MODEL, [1, 2, 5]), [2.5, 3, 4.5]);
    });

    it("a second preview changes nothing: the pull Secret does not diff against what the API server holds", async () => {
        assert.deepStrictEqual(await project.pulumi.preview({ expectNoChanges: true }), []);
    });

    it("the stack's state holds the login only encrypted", async () => {
        // What the backend holds, as `pulumi stack export` prints it (the Automation API's exportStack
        // adds --show-secrets, and would print every secret decrypted).
        const exported = await runCli("pulumi", ["stack", "export", "--stack", project.stackName], { cwd: project.projectDir });
        assert.strictEqual(exported.code, 0, exported.stderr);
        const state = exported.stdout;
        assert.match(state, /"ciphertext"/, "the login is there, encrypted");
        const basic = Buffer.from(`${TEST_LOGIN.username}:${TEST_LOGIN.password}`).toString("base64");
        for (const [what, text] of [["the password", TEST_LOGIN.password], ["the basic-auth token", basic]]) {
            assert.ok(!state.includes(text), `${what} appears in plain text in the state`);
        }
        const d = kubectl("get", "deployment", MODEL, "-n", project.namespace);
        const secret = kubectl("get", "secret", d.spec.template.spec.imagePullSecrets[0].name, "-n", project.namespace);
        assert.ok(!state.includes(secret.data[".dockerconfigjson"]), "the Secret's data appears in plain text in the state");
    });
});
