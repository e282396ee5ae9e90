import * as assert from "assert";
import { LocalRegistry, TEST_LOGIN, startRegistry } from "../support/registry";

const basic = (username: string, password: string) => ({ Authorization: `Basic ${Buffer.from(`${username}:${password}`).toString("base64")}` });

/** The registry the private-registry scenario pulls from: it must refuse anonymous and wrong logins, and admit TEST_LOGIN. */
describe("test registry with a login (htpasswd)", function () {
    this.timeout(30000);
    let registry: LocalRegistry | undefined;

    before(async () => {
        registry = await startRegistry({ login: true });
    });

    after(async () => {
        await registry?.stop();
    });

    it("answers anonymous requests with a basic-auth challenge, a wrong password with 401, TEST_LOGIN with 200", async () => {
        const anonymous = await fetch(`${registry!.url}/v2/`);
        assert.strictEqual(anonymous.status, 401);
        assert.match(anonymous.headers.get("www-authenticate") ?? "", /^Basic realm=/);
        assert.strictEqual((await fetch(`${registry!.url}/v2/`, { headers: basic(TEST_LOGIN.username, "wrong") })).status, 401);
        assert.strictEqual((await fetch(`${registry!.url}/v2/`, { headers: basic(TEST_LOGIN.username, TEST_LOGIN.password) })).status, 200);
    });
});
