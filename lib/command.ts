/**
 * Entry point `tf-serving/command`, for the `tfs` command only (the tf-serving-cli package, which
 * depends on this package at its exact version): the library modules the command's program, config
 * layer and faces are built on, each loaded when the command first requires it, so that a stack on
 * an existing cluster loads neither `@pulumi/gcp` nor `@pulumi/aws`. Not an API for programs: which
 * modules it lists and what they export change in any release; a program imports `tf-serving` and
 * the other entry points.
 *
 * The packed command's requires of these modules go through this table (`tools/pack/manifest.ts`,
 * `pointAtLibrary`); nothing else of the library is reachable from outside it. It lists exactly the
 * library modules the command requires: the packing refuses one it does not list, and one it lists
 * that the command does not require (test/unit/project/packages.test.ts checks the same from the sources).
 */
/* eslint-disable @typescript-eslint/no-require-imports -- each module loads when the command first asks for it (see above) */
export const COMMAND_MODULES = {
    "components/clouds/aws/addons": () => require("../components/clouds/aws/addons") as typeof import("../components/clouds/aws/addons"),
    "components/clouds/aws/cluster": () => require("../components/clouds/aws/cluster") as typeof import("../components/clouds/aws/cluster"),
    "components/clouds/aws/clusterArgs": () => require("../components/clouds/aws/clusterArgs") as typeof import("../components/clouds/aws/clusterArgs"),
    "components/clouds/aws/clusterAutoscaler": () => require("../components/clouds/aws/clusterAutoscaler") as typeof import("../components/clouds/aws/clusterAutoscaler"),
    "components/clouds/aws/ecr": () => require("../components/clouds/aws/ecr") as typeof import("../components/clouds/aws/ecr"),
    "components/clouds/aws/gatewayChecks": () => require("../components/clouds/aws/gatewayChecks") as typeof import("../components/clouds/aws/gatewayChecks"),
    "components/clouds/aws/instanceTypes": () => require("../components/clouds/aws/instanceTypes") as typeof import("../components/clouds/aws/instanceTypes"),
    "components/clouds/aws/kubernetesVersions": () => require("../components/clouds/aws/kubernetesVersions") as typeof import("../components/clouds/aws/kubernetesVersions"),
    "components/clouds/aws/nodeGroup": () => require("../components/clouds/aws/nodeGroup") as typeof import("../components/clouds/aws/nodeGroup"),
    "components/clouds/aws/partition": () => require("../components/clouds/aws/partition") as typeof import("../components/clouds/aws/partition"),
    "components/clouds/aws/prometheusAdapter": () => require("../components/clouds/aws/prometheusAdapter") as typeof import("../components/clouds/aws/prometheusAdapter"),
    "components/clouds/aws/vpc": () => require("../components/clouds/aws/vpc") as typeof import("../components/clouds/aws/vpc"),
    "components/clouds/collectors": () => require("../components/clouds/collectors") as typeof import("../components/clouds/collectors"),
    "components/clouds/gcp/artifactRegistry": () => require("../components/clouds/gcp/artifactRegistry") as typeof import("../components/clouds/gcp/artifactRegistry"),
    "components/clouds/gcp/cloudArmor": () => require("../components/clouds/gcp/cloudArmor") as typeof import("../components/clouds/gcp/cloudArmor"),
    "components/clouds/gcp/cluster": () => require("../components/clouds/gcp/cluster") as typeof import("../components/clouds/gcp/cluster"),
    "components/clouds/gcp/clusterArgs": () => require("../components/clouds/gcp/clusterArgs") as typeof import("../components/clouds/gcp/clusterArgs"),
    "components/clouds/gcp/customMetricsAdapter": () => require("../components/clouds/gcp/customMetricsAdapter") as typeof import("../components/clouds/gcp/customMetricsAdapter"),
    "components/clouds/gcp/gateway": () => require("../components/clouds/gcp/gateway") as typeof import("../components/clouds/gcp/gateway"),
    "components/clouds/gcp/machines": () => require("../components/clouds/gcp/machines") as typeof import("../components/clouds/gcp/machines"),
    "components/clouds/gcp/nodePool": () => require("../components/clouds/gcp/nodePool") as typeof import("../components/clouds/gcp/nodePool"),
    "components/clusterRules": () => require("../components/clusterRules") as typeof import("../components/clusterRules"),
    "components/modelGateway": () => require("../components/modelGateway") as typeof import("../components/modelGateway"),
    "components/modelImage": () => require("../components/modelImage") as typeof import("../components/modelImage"),
    "components/modelMonitoring": () => require("../components/modelMonitoring") as typeof import("../components/modelMonitoring"),
    "components/modelMonitoringArgs": () => require("../components/modelMonitoringArgs") as typeof import("../components/modelMonitoringArgs"),
    "components/modelServer": () => require("../components/modelServer") as typeof import("../components/modelServer"),
    "components/modelServerArgs": () => require("../components/modelServerArgs") as typeof import("../components/modelServerArgs"),
    "components/nodePlacement": () => require("../components/nodePlacement") as typeof import("../components/nodePlacement"),
    "components/previousOutputs": () => require("../components/previousOutputs") as typeof import("../components/previousOutputs"),
    "contract/cidr": () => require("../contract/cidr") as typeof import("../contract/cidr"),
    "contract/golden": () => require("../contract/golden") as typeof import("../contract/golden"),
    "contract/kubeAccess": () => require("../contract/kubeAccess") as typeof import("../contract/kubeAccess"),
    "contract/labels": () => require("../contract/labels") as typeof import("../contract/labels"),
    "contract/modelMetadata": () => require("../contract/modelMetadata") as typeof import("../contract/modelMetadata"),
    "contract/quantity": () => require("../contract/quantity") as typeof import("../contract/quantity"),
    "contract/registry": () => require("../contract/registry") as typeof import("../contract/registry"),
    "contract/signature": () => require("../contract/signature") as typeof import("../contract/signature"),
    "contract/signatureChange": () => require("../contract/signatureChange") as typeof import("../contract/signatureChange"),
    "contract/spelling": () => require("../contract/spelling") as typeof import("../contract/spelling"),
    "model/savedModel": () => require("../model/savedModel") as typeof import("../model/savedModel"),
    "model/servedSignatures": () => require("../model/servedSignatures") as typeof import("../model/servedSignatures"),
    "model/stagedWarmup": () => require("../model/stagedWarmup") as typeof import("../model/stagedWarmup"),
    "model/tensorJson": () => require("../model/tensorJson") as typeof import("../model/tensorJson"),
    "model/tfProto": () => require("../model/tfProto") as typeof import("../model/tfProto"),
    "model/warmup": () => require("../model/warmup") as typeof import("../model/warmup"),
    "observability/alerts": () => require("../observability/alerts") as typeof import("../observability/alerts"),
    "observability/dashboard": () => require("../observability/dashboard") as typeof import("../observability/dashboard"),
    "serving/autoscaling": () => require("../serving/autoscaling") as typeof import("../serving/autoscaling"),
    "serving/buildContext": () => require("../serving/buildContext") as typeof import("../serving/buildContext"),
    "serving/canary": () => require("../serving/canary") as typeof import("../serving/canary"),
    "serving/contentTag": () => require("../serving/contentTag") as typeof import("../serving/contentTag"),
    "serving/contextLocation": () => require("../serving/contextLocation") as typeof import("../serving/contextLocation"),
    "serving/dockerfile": () => require("../serving/dockerfile") as typeof import("../serving/dockerfile"),
    "serving/gateway": () => require("../serving/gateway") as typeof import("../serving/gateway"),
    "serving/gatewayAccess": () => require("../serving/gatewayAccess") as typeof import("../serving/gatewayAccess"),
    "serving/goldenCheck": () => require("../serving/goldenCheck") as typeof import("../serving/goldenCheck"),
    "serving/images": () => require("../serving/images") as typeof import("../serving/images"),
    "serving/modelConfig": () => require("../serving/modelConfig") as typeof import("../serving/modelConfig"),
    "serving/modelDelivery": () => require("../serving/modelDelivery") as typeof import("../serving/modelDelivery"),
    "serving/probes": () => require("../serving/probes") as typeof import("../serving/probes"),
    "serving/rollout": () => require("../serving/rollout") as typeof import("../serving/rollout"),
    "serving/serverFlag": () => require("../serving/serverFlag") as typeof import("../serving/serverFlag"),
    "serving/sizing": () => require("../serving/sizing") as typeof import("../serving/sizing"),
};
/* eslint-enable @typescript-eslint/no-require-imports */

/** A library module the command requires, by its path under the compiled root (`serving/images`). */
export type CommandModule = keyof typeof COMMAND_MODULES;
