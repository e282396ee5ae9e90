import * as assert from "assert";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { deployCommand } from "../../../cli/deploy";
import { doctorCommand } from "../../../cli/doctor";
import { smokeCommand } from "../../../cli/smoke";
import { tfsInProcess } from "../../support/tfsInProcess";

const SECRET = "s3cret-token-never-printed";

/**
 * The credential options of `tfs smoke`, `tfs deploy` and `tfs doctor`, as a user meets them: each
 * refusal is one line and exit 2, before anything is sent, and no line holds the secret.
 */
describe("tfs credential options", () => {
    let dir: string;
    const file = (name: string, text: string) => {
        const p = path.join(dir, name);
        fs.writeFileSync(p, text);
        return p;
    };
    const saved = { TFS_TOKEN: process.env.TFS_TOKEN, TFS_BASIC_AUTH: process.env.TFS_BASIC_AUTH };
    beforeEach(() => {
        dir = fs.mkdtempSync(path.join(os.tmpdir(), "tfs-credentials-"));
        delete process.env.TFS_TOKEN;
        delete process.env.TFS_BASIC_AUTH;
    });
    afterEach(() => {
        fs.rmSync(dir, { recursive: true, force: true });
        for (const [name, value] of Object.entries(saved)) {
            if (value === undefined) {
                delete process.env[name];
            } else {
                process.env[name] = value;
            }
        }
    });

    /** Runs tfs; asserts exit 2 with one `tfs: ` line on stderr that matches `says` and never holds the secret. */
    async function refused(args: string[], says: RegExp): Promise<void> {
        const run = await tfsInProcess(...args);
        assert.strictEqual(run.code, 2, `${run.stdout}${run.stderr}`);
        assert.strictEqual(run.stdout, "");
        assert.match(run.stderr, /^tfs: [^\n]+\n$/);
        assert.match(run.stderr, says);
        assert.ok(!run.stderr.includes(SECRET), run.stderr);
    }

    // Nothing listens on port 9 (discard): were anything sent, the run would end otherwise.
    const smoke = ["smoke", "--url", "http://127.0.0.1:9", "--model", "m", "--timeout", "0"];

    it("smoke refuses an empty file and a multi-line one, naming the option and the file", async () => {
        const empty = file("empty", "");
        await refused([...smoke, "--token-file", empty], new RegExp(`--token-file ${empty} is empty; it must hold a bearer token on one line`));
        const lines = file("lines", `alice:${SECRET}\nbob:${SECRET}\n`);
        await refused([...smoke, "--basic-auth-file", lines], /--basic-auth-file \S+ has more than one line; it must hold user:password on one line/);
        await refused([...smoke, "--grpc", "--url", "127.0.0.1:9", "--token-file", lines], /--token-file \S+ has more than one line/);
    });

    it("smoke refuses both kinds at once, from options or the environment", async () => {
        const token = file("token", SECRET);
        await refused([...smoke, "--token-file", token, "--basic-auth-file", file("basic", `alice:${SECRET}`)],
            /two credentials given \(--token-file \S+ and --basic-auth-file \S+\); an endpoint takes one/);
        process.env.TFS_BASIC_AUTH = `alice:${SECRET}`;
        await refused([...smoke, "--token-file", token], /two credentials given \(--token-file \S+ and TFS_BASIC_AUTH\)/);
    });

    it("smoke refuses an empty variable, a value with its scheme, and user:password without the colon", async () => {
        process.env.TFS_TOKEN = "";
        await refused(smoke, /TFS_TOKEN is empty; it must hold a bearer token on one line/);
        process.env.TFS_TOKEN = `Bearer ${SECRET}`;
        await refused(smoke, /TFS_TOKEN starts with "Bearer ": write the token alone/);
        delete process.env.TFS_TOKEN;
        process.env.TFS_BASIC_AUTH = SECRET;
        await refused(smoke, /TFS_BASIC_AUTH has no ':' between the user and the password/);
    });

    it("deploy refuses a bad credential before its first step", async () => {
        await refused(["deploy", "--stack", "dev", "--token-file", path.join(dir, "missing")], /--token-file \S+missing does not exist \(ENOENT\)/);
    });

    it("doctor refuses a credential file with no endpoint to call, and --tls without --grpc-url", async () => {
        const token = file("token", SECRET);
        await refused(["doctor", "--namespace", "tf-serving", "--token-file", token],
            /--token-file is for the endpoint's check: add --url REST_URL or --grpc-url HOST:PORT, or use --stack NAME/);
        await refused(["doctor", "--namespace", "tf-serving", "--url", "http://127.0.0.1:9", "--tls"], /--tls is for --grpc-url/);
        await refused(["doctor", "--namespace", "tf-serving", "--grpc-url", "http://127.0.0.1:9"], /--grpc-url "http:\/\/127\.0\.0\.1:9" is not HOST:PORT/);
    });

    it("are file options and variables in every command's help; none takes the secret itself", () => {
        for (const command of [smokeCommand(() => undefined), deployCommand(() => undefined), doctorCommand(() => undefined)]) {
            const options = Object.fromEntries(command.options.map((o) => [o.flags, o.description]));
            assert.match(options["--token-file <file>"], /^send "authorization: Bearer TOKEN" with the token in this file \(one line; default: the TFS_TOKEN environment variable\)$/, command.name());
            assert.match(options["--basic-auth-file <file>"], /^send "authorization: Basic \.\.\." with user:password from this file \(one line; default: the TFS_BASIC_AUTH environment variable\)$/, command.name());
            const secretTaking = Object.keys(options).filter((flags) => /token|password|auth(?!ority)|credential|secret/.test(flags) && !/<file>$/.test(flags));
            assert.deepStrictEqual(secretTaking, [], command.name());
        }
    });
});
