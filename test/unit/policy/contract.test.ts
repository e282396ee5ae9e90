import * as assert from "assert";
import * as contract from "../../../contract/labels";
import { MODEL_SERVER_COMPONENT, MODEL_SERVER_LABEL, PUBLIC_ANNOTATION } from "../../../policy/checks";

// The policy pack is published on its own and imports nothing of the program: its copy of the
// contract is held equal to the program's here.
describe("policy pack and the labels contract", () => {
    it("selects model servers on the label and value ModelServer writes", () => {
        assert.strictEqual(MODEL_SERVER_LABEL, contract.COMPONENT_LABEL);
        assert.strictEqual(MODEL_SERVER_COMPONENT, contract.MODEL_SERVER_COMPONENT);
        assert.strictEqual(contract.modelServerLabels("m")[MODEL_SERVER_LABEL], MODEL_SERVER_COMPONENT);
    });

    it("reads the public-endpoint annotation ModelServer writes", () => {
        assert.strictEqual(PUBLIC_ANNOTATION, contract.PUBLIC_ANNOTATION);
    });
});
