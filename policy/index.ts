import { PolicyPack } from "@pulumi/policy";
import { policies } from "./policies";

// Run with: pulumi preview --policy-pack policy   (see policy/README.md)
new PolicyPack("tf-serving", {
    description: "Guards for TensorFlow Serving model servers on Kubernetes: memory limits, probes, digest-pinned images, "
        + "zero-downtime rollouts, GPU tolerations and restricted load balancers.",
    enforcementLevel: "mandatory",
    policies,
});
