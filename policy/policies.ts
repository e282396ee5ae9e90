import { ReportViolation, ResourceValidationArgs, ResourceValidationPolicy } from "@pulumi/policy";
import {
    checkGpuTolerations,
    checkImageDigests,
    checkLoadBalancerSourceRanges,
    checkMemoryLimits,
    checkProbes,
    checkRollingUpdate,
    DeploymentProps,
    isModelServerDeployment,
    isModelServerService,
    POD_SPEC_PATHS,
    ServiceProps,
} from "./checks";

const DEPLOYMENT = "kubernetes:apps/v1:Deployment";
const SERVICE = "kubernetes:core/v1:Service";

/** A policy that runs `check` on model-server Deployments and reports each message as a violation. */
function onModelServerDeployments(name: string, description: string, check: (props: DeploymentProps) => string[]): ResourceValidationPolicy {
    return {
        name,
        description,
        validateResource: (args: ResourceValidationArgs, reportViolation: ReportViolation) => {
            if (args.type === DEPLOYMENT && isModelServerDeployment(args.props)) {
                check(args.props).forEach((message) => reportViolation(message));
            }
        },
    };
}

/**
 * What the runbook for "pods Running but never Ready after a model update" learned the hard way,
 * as policies on the model server's Kubernetes resources (labelled app.kubernetes.io/component:
 * model-server). Each is mandatory unless the pack's config lowers it.
 */
export const policies: ResourceValidationPolicy[] = [
    onModelServerDeployments("model-server-memory-limit",
        "Model-server containers set a memory limit.", checkMemoryLimits),
    onModelServerDeployments("model-server-probes",
        "Model-server containers have a readiness probe and a liveness or startup probe that the image can run.", checkProbes),
    {
        // Every workload, not only the model server's: the device plugin's DaemonSet runs on the same nodes.
        name: "image-digest",
        description: "Every container and init container image of every workload is pinned by digest (@sha256:...).",
        validateResource: (args: ResourceValidationArgs, reportViolation: ReportViolation) => {
            if (args.type in POD_SPEC_PATHS) {
                checkImageDigests(args.props, args.type).forEach((message) => reportViolation(message));
            }
        },
    },
    onModelServerDeployments("model-server-rolling-update",
        "Rolling updates never reduce availability (maxUnavailable 0; GPU pods may go one at a time: maxSurge 0, maxUnavailable 1) and at least one replica runs.", checkRollingUpdate),
    onModelServerDeployments("model-server-gpu-toleration",
        "Pods that request nvidia.com/gpu tolerate the nvidia.com/gpu taint.", checkGpuTolerations),
    {
        name: "model-server-loadbalancer-source-ranges",
        description: "Model-server LoadBalancer Services restrict loadBalancerSourceRanges unless annotated tf-serving.dev/public: \"true\".",
        validateResource: (args: ResourceValidationArgs, reportViolation: ReportViolation) => {
            const props = args.props as ServiceProps;
            if (args.type === SERVICE && isModelServerService(props)) {
                checkLoadBalancerSourceRanges(props).forEach((message) => reportViolation(message));
            }
        },
    },
];
