/**
 * The documented YAML program (docs/guides/other-languages.md#yaml), which
 * test/e2e/yamlConsumer.test.ts runs: it is found, and its pinned values are the repository's.
 */
import * as assert from "assert";
import * as fs from "fs";
import * as path from "path";
import * as YAML from "yaml";
import { defaultBaseImage } from "../../../serving/images";
import { documentedYamlProgram, yamlBlockOfSection } from "../../support/yamlExample";

/* eslint-disable @typescript-eslint/no-explicit-any */
const ROOT = path.resolve(__dirname, "../../..");

describe("the documented YAML program", () => {
    const program = YAML.parse(documentedYamlProgram(ROOT)) as any;

    it("is a YAML project using ModelImage and ModelServer", () => {
        assert.strictEqual(program.runtime, "yaml");
        assert.strictEqual(program.resources.image.type, "tf-serving:index:ModelImage");
        assert.strictEqual(program.resources.server.type, "tf-serving:index:ModelServer");
        assert.strictEqual(program.resources.server.properties.image, "${image.imageRef}");
    });

    it("defaults to the pinned base image and pins the Kubernetes provider the package's SDK asks for", () => {
        assert.strictEqual(program.config.baseImage.default, defaultBaseImage(false));
        const lock = JSON.parse(fs.readFileSync(path.join(ROOT, "package-lock.json"), "utf8"));
        assert.strictEqual(program.resources.cluster.options.version, lock.packages["node_modules/@pulumi/kubernetes"].version);
    });

    it("is read from the section's first yaml block, and a page without one says so", () => {
        const page = "# T\n\n## YAML\n\ntext\n\n```yaml\na: 1\n```\n\n```yaml\nb: 2\n```\n\n## Python\n";
        assert.strictEqual(yamlBlockOfSection(page, "## YAML"), "a: 1\n");
        assert.throws(() => yamlBlockOfSection("## YAML\n\n```bash\nx\n```\n\n## Python\n```yaml\nc: 3\n```\n", "## YAML"), /no ```yaml block under "## YAML"/);
        assert.throws(() => yamlBlockOfSection(page, "## Go"), /no heading "## Go"/);
    });
});
