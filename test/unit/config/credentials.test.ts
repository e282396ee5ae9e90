import * as assert from "assert";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { ServingConfig } from "../../../config/config";
import { credentialProblems } from "../../../config/credentials";

function home(files: Record<string, string> = {}): string {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "tfs-home-"));
    for (const [rel, text] of Object.entries(files)) {
        fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
        fs.writeFileSync(path.join(dir, rel), text);
    }
    return dir;
}

const local = (kubeconfig?: string) => ({ cloud: "local", local: { kubeconfig } }) as unknown as ServingConfig;
const gcp = { cloud: "gcp" } as unknown as ServingConfig;
const aws = (profile?: string) => ({ cloud: "aws", eks: { profile } }) as unknown as ServingConfig;

describe("credentialProblems", () => {
    it("local: finds ~/.kube/config, KUBECONFIG or the configured file, and names what is missing", () => {
        const withConfig = home({ ".kube/config": "apiVersion: v1" });
        assert.deepStrictEqual(credentialProblems(local(), {}, withConfig), []);
        const empty = home();
        assert.match(credentialProblems(local(), {}, empty)[0], /no kubeconfig: .*\.kube\/config does not exist; create a cluster/);
        assert.match(credentialProblems(local(), { KUBECONFIG: "/nope/a:/nope/b" }, withConfig)[0], /KUBECONFIG = \/nope\/a:\/nope\/b: no such file/);
        assert.deepStrictEqual(credentialProblems(local(), { KUBECONFIG: `/nope:${path.join(withConfig, ".kube/config")}` }, empty), []);
        assert.match(credentialProblems(local("/nope/kubeconfig"), {}, withConfig)[0], /tf-serving:kubeconfig = \/nope\/kubeconfig: no such file/);
    });

    it("gcp: application default credentials, a credentials file or a token; the fix otherwise", () => {
        assert.match(credentialProblems(gcp, {}, home())[0], /gcloud auth application-default login/);
        assert.deepStrictEqual(credentialProblems(gcp, {}, home({ ".config/gcloud/application_default_credentials.json": "{}" })), []);
        assert.match(credentialProblems(gcp, { GOOGLE_APPLICATION_CREDENTIALS: "/nope.json" }, home())[0], /no Google Cloud credentials/);
        assert.deepStrictEqual(credentialProblems(gcp, { GOOGLE_OAUTH_ACCESS_TOKEN: "t" }, home()), []);
        assert.deepStrictEqual(credentialProblems(gcp, { TFS_INSTANCE_CREDENTIALS: "1" }, home()), []);
    });

    it("aws: keys, web identity, or the profile in the shared files; names the profile key when it is missing", () => {
        assert.match(credentialProblems(aws(), {}, home())[0], /no AWS credentials: run `aws configure`/);
        assert.deepStrictEqual(credentialProblems(aws(), { AWS_ACCESS_KEY_ID: "a", AWS_SECRET_ACCESS_KEY: "b" }, home()), []);
        assert.deepStrictEqual(credentialProblems(aws(), { AWS_WEB_IDENTITY_TOKEN_FILE: "/t" }, home()), []);
        const files = home({ ".aws/config": "[profile deployer]\nregion = us-west-2\n", ".aws/credentials": "[default]\naws_access_key_id = x\n" });
        assert.deepStrictEqual(credentialProblems(aws("deployer"), {}, files), []);
        assert.deepStrictEqual(credentialProblems(aws(), {}, files), []);
        assert.match(credentialProblems(aws("prod"), {}, files)[0], /for profile "prod" \(tf-serving:eks\.profile\)/);
    });
});
