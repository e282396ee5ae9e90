import * as assert from "assert";
import * as fs from "fs";
import { URN_STACKS, stackUrns, urnListFile, urnsOf } from "../../support/stackUrns";
import { RecordedResource } from "../../../ops/planRuntime";

const resource = (type: string, name: string, parent?: string) => ({ type, name, parent }) as RecordedResource;

describe("stack URNs (what a live stack's next update matches its state by)", () => {
    it("a child's URN carries its parents' types, outermost first", () => {
        assert.deepStrictEqual(urnsOf([
            resource("tf-serving:index:EksCluster", "eks"),
            resource("tf-serving:index:EksVpc", "eks-vpc", "tf-serving:index:EksCluster::eks"),
            resource("aws:ec2/vpc:Vpc", "eks-vpc", "tf-serving:index:EksVpc::eks-vpc"),
        ]), [
            "tf-serving:index:EksCluster$tf-serving:index:EksVpc$aws:ec2/vpc:Vpc::eks-vpc",
            "tf-serving:index:EksCluster$tf-serving:index:EksVpc::eks-vpc",
            "tf-serving:index:EksCluster::eks",
        ]);
    });

    for (const stack of URN_STACKS) {
        it(`${stack}: every resource keeps the URN in test/fixtures/urns/${stack}.txt`, async () => {
            const committed = fs.readFileSync(urnListFile(stack), "utf8").trim().split("\n");
            const now = await stackUrns(stack);
            const gone = committed.filter((u) => !now.includes(u));
            const added = now.filter((u) => !committed.includes(u));
            assert.deepStrictEqual({ gone, added }, { gone: [], added: [] },
                "a changed URN replaces the resource on a live stack: keep its type, name and parent, or alias the old URN " +
                "(then write the list again: npx ts-node -T test/support/stackUrns.ts --write)");
        });
    }
});
