import * as assert from "assert";
import { diagnose, Diagnosis } from "../../../ops/doctor/diagnose";
import { Finding } from "../../../ops/doctor/findings";
import { parseSchedulingMessage, untoleratedTaints } from "../../../ops/doctor/schedulingRules";
import { ClusterSnapshot } from "../../../ops/doctor/snapshot";
import { IMAGE_VOLUME_RUNTIME_DOC } from "../../../ops/doctor/imageVolumeRules";
import { MODEL_DELIVERY_DOC } from "../../../serving/modelDelivery";
import {
    ARTIFACT, BASE_IMAGE, IMAGE, MODEL, NOW, TF_LOGS, ago, conditions, deployment, event, labels, node, pod, podSpec, schedulingEvent, service, snapshot,
} from "../../support/doctorFixtures";

const POD = `${MODEL}-6b7c9d8f5-x2kqp`;

function run(s: ClusterSnapshot, options: { model?: string; grace?: number } = {}): Diagnosis {
    return diagnose(s, { now: NOW, model: options.model, loadBalancerGraceSeconds: options.grace });
}

/** The one finding of `kind`; fails listing what was found instead. */
function only(d: Diagnosis, kind: Finding["kind"]): Finding {
    const found = d.findings.filter((f) => f.kind === kind);
    assert.strictEqual(found.length, 1, `want one ${kind}, got: ${JSON.stringify(d.findings.map((f) => `${f.kind} ${f.object}`))}`);
    return found[0];
}

function hasEvidence(f: Finding, pattern: RegExp): void {
    assert.ok(f.evidence.some((e) => pattern.test(e)), `no evidence matching ${pattern} in:\n${f.evidence.join("\n")}`);
}

/** A model server that works: its Deployment, the service with an address, and the given pods. */
function world(parts: Partial<ClusterSnapshot>): ClusterSnapshot {
    return snapshot({ deployments: [deployment({ replicas: 1, ready: 0 })], services: [service({ address: "203.0.113.7" })], ...parts });
}

describe("tfs doctor rules", () => {
    describe("healthy", () => {
        it("says healthy when every pod is Ready and the load balancer has an address", () => {
            const ready = [pod({ ready: true }), pod({ name: `${MODEL}-6b7c9d8f5-q8w7e`, ready: true })];
            const d = run(snapshot({
                pods: ready,
                deployments: [deployment()],
                services: [service({ address: "203.0.113.7" })],
                logs: { [`${POD}/tf-serving`]: [...TF_LOGS.start, TF_LOGS.loaded].join("\n") },
                // Startup probe failures while the model loaded are normal once the pod is Ready.
                events: [event(ready[0], { reason: "Unhealthy", message: "Startup probe failed: Get \"http://10.244.1.7:8501/v1/models/half-plus-two\": dial tcp 10.244.1.7:8501: connect: connection refused", count: 3, last: 580 })],
            }));
            assert.deepStrictEqual(d.findings, []);
            assert.strictEqual(d.healthy, true);
            assert.deepStrictEqual(d.checked.models, [{ model: MODEL, pods: 2, readyPods: 2, desiredReplicas: 2, service: { name: MODEL, type: "LoadBalancer", address: "203.0.113.7" } }]);
        });

        it("is not healthy when nothing is deployed, and names the models that are", () => {
            const other = pod({ name: "other-1", model: "other", ready: true });
            const d = run(snapshot({ pods: [other] }), { model: MODEL });
            const f = only(d, "not-deployed");
            assert.strictEqual(d.healthy, false);
            assert.strictEqual(f.object, "namespace/tf-serving");
            hasEvidence(f, /model servers in this namespace: other/);
            assert.match(f.fix, /--model with one of: other/);
        });

        it("ignores objects of other apps and of other models when --model is given", () => {
            const foreign = pod({ ready: false });
            foreign.metadata!.labels = { app: "nginx" };
            const d = run(snapshot({
                pods: [foreign, pod({ name: "other-1", model: "other", ready: false }), pod({ ready: true })],
                services: [service({ address: "203.0.113.7" })],
            }), { model: MODEL });
            assert.strictEqual(d.healthy, true, JSON.stringify(d.findings));
            assert.strictEqual(d.checked.pods, 1);
        });
    });

    describe("model path mismatch", () => {
        it("quotes TF Serving's 'No versions of servable' line and points at preflight and modelName", () => {
            const p = pod({ ready: false, age: 900 });
            const d = run(world({ pods: [p], logs: { [`${POD}/tf-serving`]: [...TF_LOGS.start, TF_LOGS.noVersions].join("\n") } }));
            const f = only(d, "model-not-found");
            assert.strictEqual(f.severity, "error");
            assert.strictEqual(f.object, `pod/${POD}`);
            assert.match(f.summary, /model half-plus-two under \/models\/half-plus-two/);
            hasEvidence(f, /^log half-plus-two-6b7c9d8f5-x2kqp\/tf-serving: ".*No versions of servable half-plus-two found under base path \/models\/half-plus-two\./);
            hasEvidence(f, /pod phase Running, Ready False for 14m58s/);
            assert.match(f.fix, /tfs preflight/);
            assert.match(f.fix, /modelName \("half-plus-two"\)/);
        });

        it("quotes the file-system poller's 'Could not find base path' error: the model is elsewhere in the image", () => {
            const p = pod({ ready: false, age: 900 });
            const d = run(world({ pods: [p], logs: { [`${POD}/tf-serving`]: [...TF_LOGS.start, TF_LOGS.noBasePath].join("\n") } }));
            const f = only(d, "model-not-found");
            assert.match(f.summary, /no folder \/models\/half-plus-two for model half-plus-two: the model is at another path in the image/);
            hasEvidence(f, /^log half-plus-two-6b7c9d8f5-x2kqp\/tf-serving: ".*Could not find base path \/models\/half-plus-two for servable half-plus-two/);
            assert.match(f.fix, /reads the model from \/models\/half-plus-two \(MODEL_BASE_PATH\/modelName\)/);
            assert.match(f.fix, /modelName \("half-plus-two"\)/);
        });

        it("folds the startup-probe kills that follow into the same finding", () => {
            const p = pod({ ready: false, containerStatus: { restartCount: 3, lastState: { terminated: { exitCode: 137, reason: "Error", startedAt: ago(200), finishedAt: ago(130) } } } });
            const d = run(world({
                pods: [p],
                previousLogs: { [`${POD}/tf-serving`]: TF_LOGS.noVersions },
                logs: { [`${POD}/tf-serving`]: TF_LOGS.start.join("\n") },
                events: [
                    event(p, { reason: "Killing", message: "Container tf-serving failed startup probe, will be restarted", type: "Normal", count: 3, last: 130 }),
                    event(p, { reason: "Unhealthy", message: "Startup probe failed: Get \"http://10.244.1.7:8501/v1/models/half-plus-two\": dial tcp 10.244.1.7:8501: connect: connection refused", count: 42, last: 131 }),
                ],
            }));
            assert.deepStrictEqual(d.findings.map((f) => f.kind), ["model-not-found"]);
            hasEvidence(d.findings[0], /event Normal Killing x3 .*failed startup probe/);
        });

        it("reads 'Could not find SavedModel' as a failed load", () => {
            const p = pod({ ready: false });
            const d = run(world({ pods: [p], logs: { [`${POD}/tf-serving`]: TF_LOGS.notFound } }));
            const f = only(d, "model-load-failed");
            assert.match(f.summary, /model half-plus-two version 123/);
            hasEvidence(f, /NOT_FOUND: Could not find SavedModel \.pb or \.pbtxt/);
            assert.match(f.fix, /saved_model\.pb/);
        });

        it("recognizes 'Failed to load model' lines", () => {
            const p = pod({ ready: false });
            const d = run(world({ pods: [p], logs: { [`${POD}/tf-serving`]: "E0601 server.cc:91] Failed to load model half-plus-two: Op type not registered 'Foo' in binary" } }));
            const f = only(d, "model-load-failed");
            assert.match(f.fix, /base at least as new as the TensorFlow/);
        });
    });

    describe("CrashLoopBackOff", () => {
        it("shows the last termination, the exit code and the last log lines", () => {
            const p = pod({
                ready: false,
                containerStatus: {
                    restartCount: 5,
                    state: { waiting: { reason: "CrashLoopBackOff", message: "back-off 2m40s restarting failed container=tf-serving pod=half-plus-two-6b7c9d8f5-x2kqp_tf-serving(uid-half-plus-two-6b7c9d8f5-x2kqp)" } },
                    lastState: { terminated: { exitCode: 1, reason: "Error", startedAt: ago(100), finishedAt: ago(95) } },
                },
            });
            const lines = ["line 1", "line 2", "line 3", "line 4", "line 5", "2025-06-01 11:58:25.1: E server.cc:101] Invalid argument: --rest_api_port cannot be the same as --port"];
            const d = run(world({ pods: [p], logs: { [`${POD}/tf-serving`]: lines.join("\n") } }));
            const f = only(d, "crash-loop");
            hasEvidence(f, /container tf-serving restarted 5 times; now waiting: CrashLoopBackOff \(back-off 2m40s/);
            hasEvidence(f, /container tf-serving lastState\.terminated: Error, exit code 1, finished 2025-06-01T11:58:25Z/);
            hasEvidence(f, /--rest_api_port cannot be the same as --port/);
            assert.ok(!f.evidence.some((e) => e.includes("line 1")), "only the last 5 lines");
            assert.match(f.fix, /last log lines/);
        });

        it("quotes the server's error lines, not the usage text it prints after them", () => {
            const p = pod({ ready: false, containerStatus: { restartCount: 2, state: { waiting: { reason: "CrashLoopBackOff" } }, lastState: { terminated: { exitCode: 255, reason: "Error" } } } });
            const lines = [
                "2026-11-30 11:45:46.100000: E command_line_flags.cc] Couldn't interpret value four for flag rest_api_num_threads.",
                "usage: tensorflow_model_server", "Flags:",
                ...Array.from({ length: 8 }, (_, i) => `\t--flag_${i}=0\tint32\thelp ${i}`),
            ];
            const f = only(run(world({ pods: [p], logs: { [`${POD}/tf-serving`]: lines.join("\n") } })), "crash-loop");
            hasEvidence(f, /Couldn't interpret value four for flag rest_api_num_threads/);
            assert.ok(!f.evidence.some((e) => e.includes("--flag_")), f.evidence.join("\n"));
        });

        it("folds a startup probe that failed between two crashes into the crash loop", () => {
            const p = pod({ ready: false, containerStatus: { restartCount: 2, state: { waiting: { reason: "CrashLoopBackOff" } }, lastState: { terminated: { exitCode: 255, reason: "Error" } } } });
            const probe = event(p, { reason: "Unhealthy", message: "Startup probe failed: Get \"http://10.244.1.7:8501/v1/models/half-plus-two\": dial tcp 10.244.1.7:8501: connect: connection refused", count: 1, last: 30 });
            const f = only(run(world({ pods: [p], events: [probe] })), "crash-loop");
            hasEvidence(f, /Startup probe failed/);
        });

        it("explains exit code 132 as an illegal instruction", () => {
            const p = pod({ containerStatus: { restartCount: 2, state: { waiting: { reason: "CrashLoopBackOff" } }, lastState: { terminated: { exitCode: 132, reason: "Error" } } } });
            const f = only(run(world({ pods: [p] })), "crash-loop");
            assert.match(f.fix, /SIGILL/);
            hasEvidence(f, /no log lines from/);
        });
    });

    describe("probes", () => {
        it("names a pod killed by its startup probe, with the budget and the model size", () => {
            const p = pod({
                ready: false,
                annotations: { "tf-serving.dev/model-bytes": String(900 * 2 ** 20) },
                containerStatus: { restartCount: 2, lastState: { terminated: { exitCode: 137, reason: "Error", finishedAt: ago(40) } } },
            });
            const d = run(world({
                pods: [p],
                logs: { [`${POD}/tf-serving`]: TF_LOGS.start.join("\n") },
                events: [
                    event(p, { reason: "Unhealthy", message: "Startup probe failed: Get \"http://10.244.1.7:8501/v1/models/half-plus-two\": dial tcp 10.244.1.7:8501: connect: connection refused", count: 28, last: 41 }),
                    event(p, { reason: "Killing", message: "Container tf-serving failed startup probe, will be restarted", type: "Normal", count: 2, last: 40 }),
                ],
            }));
            const f = only(d, "startup-probe-killed");
            assert.strictEqual(f.severity, "error");
            hasEvidence(f, /event Normal Killing x2 \(last 2025-06-01T11:59:20Z\): Container tf-serving failed startup probe, will be restarted/);
            hasEvidence(f, /event Warning Unhealthy x28 .*Startup probe failed: .*connection refused/);
            hasEvidence(f, /^startup probe: GET \/v1\/models\/half-plus-two on port http, initialDelay 0s, period 5s, timeout 3s, failureThreshold 14$/);
            hasEvidence(f, /^startup budget 70s to load the model$/);
            hasEvidence(f, /model size 900 MiB on disk \(annotation tf-serving.dev\/model-bytes\)/);
            hasEvidence(f, /exit code 137/);
            assert.match(f.fix, /grows with the model's size/);
            assert.match(f.fix, /base matches/);
            assert.strictEqual(d.findings.length, 1, "crash and probe symptoms fold into it");
        });

        it("says when the model size is not recorded", () => {
            const p = pod();
            const d = run(world({ pods: [p], events: [event(p, { reason: "Killing", message: "Container tf-serving failed startup probe, will be restarted", type: "Normal" })] }));
            hasEvidence(only(d, "startup-probe-killed"), /model size not recorded \(no tf-serving.dev\/model-bytes annotation\)/);
        });

        it("reports a failing readiness probe with a 404 as a model name mismatch", () => {
            const p = pod({ ready: false });
            const d = run(world({ pods: [p], events: [event(p, { reason: "Unhealthy", message: "Readiness probe failed: HTTP probe failed with statuscode: 404", count: 12 })] }));
            const f = only(d, "probe-failed");
            assert.strictEqual(f.severity, "error");
            assert.match(f.summary, /readiness probe fails/);
            hasEvidence(f, /event Warning Unhealthy x12 .*: Readiness probe failed: HTTP probe failed with statuscode: 404/);
            hasEvidence(f, /readiness probe: GET \/v1\/models\/half-plus-two on port http/);
            assert.match(f.fix, /modelName matches/);
        });

        it("warns about liveness restarts of a pod that is Ready again", () => {
            const p = pod({ ready: true, containerStatus: { restartCount: 1 } });
            const d = run(world({
                pods: [p],
                deployments: [deployment({ replicas: 1 })],
                events: [
                    event(p, { reason: "Unhealthy", message: "Liveness probe failed: Get \"http://10.244.1.7:8501/v1/models/half-plus-two\": context deadline exceeded (Client.Timeout exceeded while awaiting headers)", count: 6 }),
                    event(p, { reason: "Killing", message: "Container tf-serving failed liveness probe, will be restarted", type: "Normal" }),
                ],
            }));
            const f = only(d, "probe-failed");
            assert.strictEqual(f.severity, "warning");
            assert.match(f.fix, /CPU-throttled/);
            assert.strictEqual(d.healthy, false);
        });
    });

    describe("OOMKilled", () => {
        const oomPod = (annotations?: Record<string, string>) => pod({
            ready: false,
            annotations,
            containerStatus: {
                restartCount: 4,
                state: { waiting: { reason: "CrashLoopBackOff", message: "back-off 1m20s restarting failed container=tf-serving" } },
                lastState: { terminated: { exitCode: 137, reason: "OOMKilled", startedAt: ago(70), finishedAt: ago(61) } },
            },
        });

        it("puts the limit and the recorded model size and peak beside the kill", () => {
            const p = oomPod({ "tf-serving.dev/model-bytes": String(300 * 2 ** 20), "tf-serving.dev/memory-peak-bytes": String(976 * 2 ** 20) });
            const d = run(world({ pods: [p] }));
            assert.deepStrictEqual(d.findings.map((f) => f.kind), ["oom-killed"], "the crash loop is its symptom");
            const f = d.findings[0];
            assert.strictEqual(f.severity, "error");
            hasEvidence(f, /^container tf-serving lastState\.terminated: OOMKilled, exit code 137, finished 2025-06-01T11:58:59Z$/);
            hasEvidence(f, /^memory limit 512Mi \(512 MiB\)$/);
            hasEvidence(f, /^model size 300 MiB on disk \(annotation tf-serving.dev\/model-bytes\)$/);
            hasEvidence(f, /^reload peak 976 MiB \(annotation tf-serving.dev\/memory-peak-bytes\): the limit is 464 MiB below it$/);
            hasEvidence(f, /restarted 4 times; now waiting: CrashLoopBackOff/);
            assert.match(f.fix, /memoryLimit/);
        });

        it("reads the sizes from the Deployment's pod template too, and says so when none is recorded", () => {
            const withTemplate = run(world({
                pods: [oomPod()],
                deployments: [deployment({ replicas: 1, ready: 0, annotations: { "tf-serving.dev/model-bytes": String(2 * 2 ** 30) } })],
            }));
            hasEvidence(only(withTemplate, "oom-killed"), /model size 2\.0 GiB on disk/);
            const without = run(world({ pods: [oomPod()] }));
            hasEvidence(only(without, "oom-killed"), /model size not recorded/);
        });

        it("is a warning when the container runs and is Ready again", () => {
            const p = pod({ ready: true, containerStatus: { restartCount: 1, lastState: { terminated: { exitCode: 137, reason: "OOMKilled", finishedAt: ago(3000) } } } });
            const d = run(world({ pods: [p], deployments: [deployment({ replicas: 1 })] }));
            assert.strictEqual(only(d, "oom-killed").severity, "warning");
            assert.strictEqual(d.healthy, false);
        });
    });

    describe("image pull and permission denied", () => {
        it("names an unauthorized pull with the kubelet's message", () => {
            const p = pod({ ready: false, containerStatus: { state: { waiting: { reason: "ImagePullBackOff", message: `Back-off pulling image "${"europe-docker.pkg.dev/p/r/half-plus-two@sha256:abc"}"` } } } });
            const d = run(world({
                pods: [p],
                events: [
                    event(p, { reason: "Failed", message: "Failed to pull image \"europe-docker.pkg.dev/p/r/half-plus-two@sha256:abc\": failed to pull and unpack image: failed to resolve reference: unexpected status from HEAD request: 403 Forbidden", count: 4 }),
                    event(p, { reason: "Failed", message: "Error: ErrImagePull", count: 4 }),
                ],
            }));
            const f = only(d, "image-pull");
            assert.match(f.summary, /ImagePullBackOff: not authorized/);
            hasEvidence(f, /403 Forbidden/);
            assert.ok(!f.evidence.some((e) => e.includes("Error: ErrImagePull")));
            assert.match(f.fix, /Artifact Registry Reader/);
            assert.strictEqual(d.findings.length, 1);
        });

        it("names a missing image (manifest unknown)", () => {
            const p = pod({ containerStatus: { state: { waiting: { reason: "ErrImagePull", message: "rpc error: code = NotFound desc = failed to pull and unpack image \"r/m@sha256:abc\": failed to resolve reference \"r/m@sha256:abc\": r/m@sha256:abc: not found" } } } });
            const f = only(run(world({ pods: [p] })), "image-pull");
            assert.match(f.summary, /not found/);
            assert.match(f.fix, /manifest unknown/);
        });

        it("names permission denied on exec from a StartError", () => {
            const message = "failed to create containerd task: failed to create shim task: OCI runtime create failed: runc create failed: unable to start container process: exec: \"/usr/bin/tensorflow_model_server\": permission denied: unknown";
            const p = pod({
                ready: false,
                containerStatus: {
                    restartCount: 3,
                    state: { waiting: { reason: "CrashLoopBackOff", message: "back-off 40s restarting failed container=tf-serving" } },
                    lastState: { terminated: { exitCode: 128, reason: "StartError", message, finishedAt: ago(50) } },
                },
            });
            const d = run(world({ pods: [p] }));
            assert.deepStrictEqual(d.findings.map((f) => f.kind), ["permission-denied"]);
            const f = d.findings[0];
            hasEvidence(f, /^container tf-serving lastState\.terminated: StartError, exit code 128, finished 2025-06-01T11:59:10Z: .*exec: "\/usr\/bin\/tensorflow_model_server": permission denied: unknown$/);
            assert.strictEqual(f.evidence.filter((e) => e.includes("StartError")).length, 1, "the crash loop's copy of the termination folds into it");
            hasEvidence(f, /pod runs as user 10001, group 10001, fsGroup 10001/);
            assert.match(f.fix, /tfs build-context/);
        });

        it("names permission denied reading the model from TF Serving's log", () => {
            const p = pod({ ready: false });
            const d = run(world({ pods: [p], logs: { [`${POD}/tf-serving`]: TF_LOGS.permissionDenied } }));
            assert.deepStrictEqual(d.findings.map((f) => f.kind), ["permission-denied"], "not also a generic load failure");
            hasEvidence(d.findings[0], /PERMISSION_DENIED: \/models\/half-plus-two\/123\/saved_model\.pb; Permission denied/);
        });

        it("names a runAsNonRoot refusal as a container config error", () => {
            const p = pod({ containerStatus: { state: { waiting: { reason: "CreateContainerConfigError", message: "container has runAsNonRoot and image will run as root (pod: \"half-plus-two-6b7c9d8f5-x2kqp_tf-serving(uid)\", container: tf-serving)" } } } });
            const f = only(run(world({ pods: [p] })), "container-config-error");
            assert.match(f.fix, /non-root USER/);
        });
    });

    describe("image volume (modelDelivery: imageVolume)", () => {
        // What the kubelet reports for an image volume it cannot pull: it pulls the volume's reference before
        // it starts the containers (kubernetes pkg/kubelet/kuberuntime/kuberuntime_manager.go, getImageVolumes),
        // through the image manager (pkg/kubelet/images/image_manager.go): events about the pod itself (no
        // fieldPath) `Failed` "Failed to pull image \"REF\": ..." and `BackOff` "Back-off pulling image \"REF\"",
        // and the container that mounts it waits ErrImagePull, then ImagePullBackOff (test/e2e/common/node/
        // image_volume.go, "should fail if image volume is not existing"), the pod Pending in ContainerCreating.
        const notFound = `rpc error: code = NotFound desc = failed to pull and unpack image "${ARTIFACT}": failed to resolve reference "${ARTIFACT}": ${ARTIFACT}: not found`;
        const creating = (waiting: { reason: string; message: string }, options: { pullSecret?: string } = {}) => pod({
            spec: podSpec({ artifact: ARTIFACT, ...options }),
            phase: "Pending",
            conditions: conditions(false, ago(598)),
            containerStatus: { started: false, state: { waiting } },
        });
        const pullEvents = (p: ReturnType<typeof pod>, error: string) => [
            event(p, { reason: "Pulling", type: "Normal", message: `Pulling image "${ARTIFACT}"`, count: 4, last: 95, fieldPath: null }),
            event(p, { reason: "Failed", message: `Failed to pull image "${ARTIFACT}": ${error}`, count: 4, last: 95, fieldPath: null }),
            event(p, { reason: "BackOff", type: "Normal", message: `Back-off pulling image "${ARTIFACT}"`, count: 30, last: 10, fieldPath: null }),
        ];

        it("names the model artifact the registry does not hold, not the server image, with the event and the push as the fix", () => {
            const p = creating({ reason: "ImagePullBackOff", message: `Back-off pulling image "${ARTIFACT}": ErrImagePull: ${notFound}` });
            const d = run(world({ pods: [p], events: pullEvents(p, notFound) }));
            assert.deepStrictEqual(d.findings.map((f) => f.kind), ["image-volume"], "not also an image-pull of the server image");
            const f = d.findings[0];
            assert.strictEqual(f.object, `pod/${POD}`);
            assert.strictEqual(f.severity, "error");
            assert.match(f.summary, new RegExp(`cannot pull the model artifact ${ARTIFACT.replace(/[.@]/g, "\\$&")} of image volume model \\(ImagePullBackOff: not found\\); the server image is not what fails`));
            assert.ok(!f.summary.includes(BASE_IMAGE), f.summary);
            hasEvidence(f, new RegExp(`^pod volume model: image ${ARTIFACT.replace(/[.@]/g, "\\$&")} \\(pullPolicy IfNotPresent\\), mounted by container tf-serving at /models/half-plus-two: the model artifact$`));
            hasEvidence(f, new RegExp(`^container tf-serving image ${BASE_IMAGE.replace(/[.@]/g, "\\$&")}: the server, not the image that fails$`));
            hasEvidence(f, /^event Warning Failed x4 \(last 2025-06-01T11:58:25Z\): Failed to pull image ".*half-plus-two-model@sha256:.*: not found$/);
            hasEvidence(f, /^event Normal BackOff x30 .*Back-off pulling image/);
            hasEvidence(f, /no imagePullSecrets: the node's own registry credentials/);
            assert.match(f.fix, /holds no artifact at .*manifest unknown.*`pulumi up` builds and pushes the model artifact/);
            assert.ok(f.fix.includes(MODEL_DELIVERY_DOC), f.fix);
        });

        it("reads the artifact from the events when the container's message is gone, and names an unauthorized pull with the pull secrets", () => {
            const denied = `rpc error: code = Unknown desc = failed to pull and unpack image "${ARTIFACT}": failed to resolve reference "${ARTIFACT}": `
                + "failed to authorize: failed to fetch oauth token: unexpected status from GET request to https://127.0.0.1:15000/token?scope=repository%3Atf-serving%2Fhalf-plus-two-model%3Apull: 401 Unauthorized";
            const p = creating({ reason: "ErrImagePull", message: "" }, { pullSecret: "registry-credentials" });
            const d = run(world({ pods: [p], events: pullEvents(p, denied) }));
            const f = only(d, "image-volume");
            assert.strictEqual(d.findings.length, 1, JSON.stringify(d.findings.map((x) => x.kind)));
            assert.match(f.summary, /\(ErrImagePull: not authorized\)/);
            hasEvidence(f, /401 Unauthorized/);
            hasEvidence(f, /^pod imagePullSecrets: registry-credentials \(the kubelet pulls image volumes with them too\)$/);
            assert.match(f.fix, /pulls an image volume with the pod's imagePullSecrets and the node's credentials/);
        });

        it("names a node runtime without image volumes from the mount it could not make, with the runtime and the versions that can", () => {
            // containerd before 2.1 pulls the artifact, then is handed a mount with no host path, which
            // WithMounts tries to create (containerd 1.7, pkg/cri/opts/spec_linux_opts.go: "failed to
            // mkdir %q: %w" of Go's MkdirAll(""), "mkdir : no such file or directory"); the message a
            // node showed in kubernetes-sigs/kind#3745.
            const message = 'failed to generate container "5b0c1e7d" spec: failed to apply OCI options: failed to mkdir "": mkdir : no such file or directory';
            const p = creating({ reason: "CreateContainerError", message });
            const d = run(world({
                pods: [p],
                nodes: [node("tfs-node-1", { cpu: "4", memory: "16Gi", runtime: "containerd://1.7.27" })],
                events: [
                    event(p, { reason: "Pulled", type: "Normal", message: `Successfully pulled image "${ARTIFACT}" in 412ms (412ms including waiting). Image size: 12650 bytes.`, last: 120, fieldPath: null }),
                    event(p, { reason: "Failed", message: `Error: ${message}`, count: 6, last: 20 }),
                ],
            }));
            assert.deepStrictEqual(d.findings.map((f) => f.kind), ["image-volume"], "not also a container-config-error");
            const f = d.findings[0];
            assert.match(f.summary, /cannot mount the model artifact .*half-plus-two-model.* \(image volume model\): its container runtime does not support image volumes \(CreateContainerError\)/);
            hasEvidence(f, /^container tf-serving state\.waiting: CreateContainerError: .*failed to mkdir "": mkdir : no such file or directory$/);
            hasEvidence(f, /^event Warning Failed x6 .*Error: failed to generate container/);
            hasEvidence(f, /^node tfs-node-1 runtime containerd:\/\/1\.7\.27: it runs containerd 1\.7\.27, and image volumes need containerd 2\.1 or later$/);
            assert.match(f.fix, /containerd 2\.1 or later \(or CRI-O 1\.31 or later\)/);
            assert.match(f.fix, /modelDelivery: embedded/);
            assert.ok(f.fix.includes(IMAGE_VOLUME_RUNTIME_DOC), f.fix);

            // Without the nodes (no right to list them) the mount's message alone names the runtime.
            const alone = only(run(world({ pods: [p], events: [] })), "image-volume");
            assert.match(alone.summary, /its container runtime does not support image volumes/);
            assert.ok(!alone.evidence.some((e) => e.startsWith("node ")), alone.evidence.join("\n"));
        });

        it("names a mount that a runtime with image volumes failed, pointing at its message rather than at the runtime's version", () => {
            // containerd 2.3 with the erofs snapshotter (containerd/containerd#13534).
            const message = 'failed to mount image volume: ImageVolumeMountFailed: failed to mount image volume component "/run/containerd/io.containerd.grpc.v1.cri/image-volumes/9d40/0344": mount source: "overlay", target: "/run/containerd/io.containerd.grpc.v1.cri/image-volumes/9d40/0344": invalid argument';
            const p = creating({ reason: "CreateContainerError", message });
            const d = run(world({ pods: [p], nodes: [node("tfs-node-1", { cpu: "4", memory: "16Gi", runtime: "containerd://2.3.1" })] }));
            const f = only(d, "image-volume");
            assert.match(f.summary, /\(image volume model\): the runtime failed to mount it \(CreateContainerError\)/);
            hasEvidence(f, /^node tfs-node-1 runtime containerd:\/\/2\.3\.1: mounts image volumes$/);
            assert.match(f.fix, /pulled the artifact but could not mount it: .* runtime's log on node tfs-node-1/);
            assert.strictEqual(d.findings.filter((x) => x.kind === "container-config-error").length, 0);
        });

        it("still names the server image when the base is what fails to pull beside an artifact", () => {
            const baseMissing = `rpc error: code = NotFound desc = failed to pull and unpack image "${BASE_IMAGE}": failed to resolve reference "${BASE_IMAGE}": not found`;
            const p = creating({ reason: "ErrImagePull", message: baseMissing });
            const d = run(world({ pods: [p], events: [event(p, { reason: "Failed", message: `Failed to pull image "${BASE_IMAGE}": ${baseMissing}`, count: 2 })] }));
            const f = only(d, "image-pull");
            assert.strictEqual(d.findings.length, 1, JSON.stringify(d.findings.map((x) => x.kind)));
            assert.ok(f.summary.includes(`cannot pull image ${BASE_IMAGE} (ErrImagePull: not found)`), f.summary);
        });

        it("gives the embedded image's pull failure the image-pull finding, as before", () => {
            const missing = `rpc error: code = NotFound desc = failed to pull and unpack image "${IMAGE}": failed to resolve reference "${IMAGE}": ${IMAGE}: not found`;
            const p = pod({ containerStatus: { state: { waiting: { reason: "ImagePullBackOff", message: `Back-off pulling image "${IMAGE}": ErrImagePull: ${missing}` } } } });
            const d = run(world({ pods: [p], events: [event(p, { reason: "Failed", message: `Failed to pull image "${IMAGE}": ${missing}`, count: 3 })] }));
            assert.deepStrictEqual(d.findings.map((f) => f.kind), ["image-pull"]);
            assert.ok(d.findings[0].summary.includes(`cannot pull image ${IMAGE} (ImagePullBackOff: not found)`), d.findings[0].summary);
            assert.match(d.findings[0].fix, /manifest unknown/);
        });
    });

    describe("scheduling", () => {
        const pending = (spec = podSpec({ gpu: 1 })) => pod({ nodeName: "", ready: false, spec, conditions: [{ type: "PodScheduled", status: "False", reason: "Unschedulable", lastTransitionTime: ago(300), message: "0/2 nodes are available: ..." }] });

        it("splits the scheduler's message into per-node reasons", () => {
            assert.deepStrictEqual(parseSchedulingMessage("0/3 nodes are available: 1 Insufficient nvidia.com/gpu, 2 node(s) had untolerated taint {nvidia.com/gpu: present}. preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling."), [
                { nodes: 1, text: "Insufficient nvidia.com/gpu" },
                { nodes: 2, text: "node(s) had untolerated taint {nvidia.com/gpu: present}" },
            ]);
            assert.deepStrictEqual(parseSchedulingMessage("0/1 nodes are available: 1 Insufficient cpu, 1 Insufficient memory."), [
                { nodes: 1, text: "Insufficient cpu" }, { nodes: 1, text: "Insufficient memory" },
            ]);
            assert.deepStrictEqual(parseSchedulingMessage("no nodes available to schedule pods"), []);
            // 1.35: the taint unnamed, and the dynamic resources plugin's sentence before "preemption:".
            assert.deepStrictEqual(parseSchedulingMessage("0/2 nodes are available: 1 Insufficient nvidia.com/gpu, 1 node(s) had untolerated taint(s). no new claims to deallocate, preemption: 0/2 nodes are available: 2 Preemption is not helpful for scheduling."), [
                { nodes: 1, text: "Insufficient nvidia.com/gpu" }, { nodes: 1, text: "node(s) had untolerated taint(s)" },
            ]);
        });

        it("names a GPU pod without the GPU toleration", () => {
            const p = pending();
            const d = run(world({ pods: [p], events: [schedulingEvent(p, "0/2 nodes are available: 1 Insufficient nvidia.com/gpu, 1 node(s) had untolerated taint {nvidia.com/gpu: present}. preemption: 0/2 nodes are available: 2 Preemption is not helpful for scheduling.")] }));
            const f = only(d, "untolerated-taint");
            hasEvidence(f, /event Warning FailedScheduling \(last 2025-06-01T11:59:40\.000000Z\): 0\/2 nodes are available/);
            hasEvidence(f, /pod requests cpu 1, memory 384Mi, nvidia.com\/gpu 1/);
            hasEvidence(f, /pod tolerates no taints/);
            assert.match(f.fix, /\{key: nvidia.com\/gpu, operator: Exists, effect: NoSchedule\}/);
        });

        // Kubernetes 1.35's scheduler no longer names the taint: "node(s) had untolerated taint(s)"
        // (kubernetes pkg/scheduler/framework/plugins/tainttoleration/taint_toleration.go, Filter).
        const UNNAMED = "0/2 nodes are available: 1 Insufficient nvidia.com/gpu, 1 node(s) had untolerated taint(s). no new claims to deallocate, preemption: 0/2 nodes are available: 2 Preemption is not helpful for scheduling.";

        it("names a GPU pod without the GPU toleration from 1.35's message, the taint read from the nodes", () => {
            const p = pending();
            const nodes = [node("cpu-node", { cpu: "2", memory: "4Gi" }), node("gpu-node", { cpu: "8", memory: "30Gi", gpu: 1 })];
            const f = only(run(world({ pods: [p], nodes, events: [schedulingEvent(p, UNNAMED)] })), "untolerated-taint");
            hasEvidence(f, /untolerated taint\(s\)/);
            assert.match(f.fix, /taint \{nvidia.com\/gpu: present\}/);
            assert.match(f.fix, /\{key: nvidia.com\/gpu, operator: Exists, effect: NoSchedule\}/);
        });

        it("names the GPU taint from 1.35's message without the nodes, for a GPU pod that does not tolerate it", () => {
            const p = pending();
            assert.strictEqual(only(run(world({ pods: [p], events: [schedulingEvent(p, UNNAMED)] })), "untolerated-taint").kind, "untolerated-taint");
            const tolerant = pending(podSpec({ gpu: 1, tolerations: [{ key: "nvidia.com/gpu", operator: "Exists", effect: "NoSchedule" }] }));
            assert.strictEqual(only(run(world({ pods: [tolerant], events: [schedulingEvent(tolerant, UNNAMED)] })), "gpu-unavailable").kind, "gpu-unavailable",
                "a pod that tolerates the GPU taint meets another one: no GPU free is what the message says of the rest");
        });

        it("reads only the taints the pod does not tolerate, NoSchedule and NoExecute, from the nodes", () => {
            const p = pending(podSpec({ gpu: 1, tolerations: [{ key: "nvidia.com/gpu", operator: "Exists", effect: "NoSchedule" }] }));
            const tainted = node("other", { cpu: "2", memory: "4Gi" });
            tainted.spec = { taints: [{ key: "dedicated", value: "batch", effect: "NoSchedule" }, { key: "soft", value: "x", effect: "PreferNoSchedule" }] };
            const nodes = [tainted, node("gpu-node", { cpu: "8", memory: "30Gi", gpu: 1 })];
            const reasons = parseSchedulingMessage(UNNAMED);
            assert.deepStrictEqual(untoleratedTaints(reasons, p, nodes), ["{dedicated: batch}"]);
            assert.deepStrictEqual(untoleratedTaints(parseSchedulingMessage("0/1 nodes are available: 1 node(s) had untolerated taint {a: b}."), p, nodes), ["{a: b}"],
                "a message that names the taint (1.34 and before) is taken as it is");
        });

        it("names a GPU pod with nowhere a free GPU", () => {
            const p = pending(podSpec({ gpu: 1, tolerations: [{ key: "nvidia.com/gpu", operator: "Exists", effect: "NoSchedule" }] }));
            const d = run(world({ pods: [p], events: [schedulingEvent(p, "0/2 nodes are available: 2 Insufficient nvidia.com/gpu. preemption: 0/2 nodes are available: 2 No preemption victims found for incoming pod.")] }));
            const f = only(d, "gpu-unavailable");
            hasEvidence(f, /pod tolerates nvidia.com\/gpu Exists NoSchedule/);
            assert.match(f.fix, /device plugin/);
            assert.match(f.fix, /maxSurge 1/);
        });

        it("names a CPU pod that only GPU nodes could take", () => {
            const p = pending(podSpec());
            const f = only(run(world({ pods: [p], events: [schedulingEvent(p, "0/1 nodes are available: 1 node(s) had untolerated taint {nvidia.com/gpu: present}. preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling.")] })), "untolerated-taint");
            assert.match(f.fix, /add CPU nodes/);
        });

        it("names memory as the cause from the condition when no event is left, without the nodes", () => {
            const p = pod({ nodeName: "", spec: podSpec(), conditions: [{ type: "PodScheduled", status: "False", reason: "Unschedulable", message: "0/3 nodes are available: 3 Insufficient memory. preemption: 0/3 nodes are available: 3 No preemption victims found for incoming pod.", lastTransitionTime: ago(100) }] });
            const f = only(run(world({ pods: [p] })), "insufficient-resources");
            hasEvidence(f, /condition PodScheduled False \(Unschedulable\): 0\/3 nodes are available: 3 Insufficient memory/);
            hasEvidence(f, /nodes: not readable with these credentials/);
            assert.match(f.summary, /no node it may run on has the memory it requests free/);
            assert.match(f.fix, /the pod requests 384 MiB/);
            assert.match(f.fix, /`memoryRequest`/);
        });

        it("names CPU, not the GPU node's taint, for a CPU pod too big for the CPU node, with the numbers", () => {
            const big = podSpec();
            big.containers![0].resources = { requests: { cpu: "3", memory: "384Mi" }, limits: { cpu: "3", memory: "512Mi" } };
            const p = pending(big);
            const message = "0/2 nodes are available: 1 Insufficient cpu, 1 node(s) had untolerated taint {nvidia.com/gpu: present}. preemption: 0/2 nodes are available: 1 No preemption victims found for incoming pod, 1 Preemption is not helpful for scheduling.";
            const nodes = [node("cpu-node", { cpu: "1930m", memory: "7Gi" }), node("gpu-node", { cpu: "8", memory: "30Gi", gpu: 1 })];
            const f = only(run(world({ pods: [p], events: [schedulingEvent(p, message)], nodes })), "insufficient-resources");
            assert.match(f.summary, /no node it may run on has the cpu it requests free \(1 Insufficient cpu, 1 node\(s\) had untolerated taint/);
            hasEvidence(f, /^pod requests cpu 3, memory 384Mi$/);
            hasEvidence(f, /^node cpu-node allocatable cpu 1\.93 CPU \(before what its other pods request\)$/);
            assert.ok(!f.evidence.some((e) => /gpu-node/.test(e)), "the tainted GPU node was never a candidate");
            assert.match(f.fix, /the pod requests 3 CPU, more than any node it may run on can allocate at all \(the largest: 1\.93 CPU\)/);
            assert.match(f.fix, /lower `cpu` in the stack config/);
        });

        it("names CPU and memory together when the node fits one request but is full", () => {
            const p = pending(podSpec());
            const f = only(run(world({
                pods: [p],
                events: [schedulingEvent(p, "0/1 nodes are available: 1 Insufficient cpu, 1 Insufficient memory. preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod.")],
                nodes: [node("cpu-node", { cpu: "2", memory: "4Gi" })],
            })), "insufficient-resources");
            assert.match(f.summary, /has the cpu and memory it requests free/);
            assert.match(f.fix, /the pod requests 1 CPU; the largest node it may run on allocates 2 CPU, and its other pods hold the rest/);
            assert.match(f.fix, /the pod requests 384 MiB; the largest node it may run on allocates 4\.0 GiB/);
            assert.match(f.fix, /`cpu` \/ `memoryRequest`/);
        });
    });

    describe("load balancer", () => {
        it("is an error when the Service has no address after the grace period, naming a missing controller", () => {
            const d = run(snapshot({ pods: [pod({ ready: true })], services: [service({ age: 1200 })] }));
            const f = only(d, "load-balancer-pending");
            assert.strictEqual(f.severity, "error");
            assert.strictEqual(f.object, `service/${MODEL}`);
            hasEvidence(f, /service\/half-plus-two type LoadBalancer created 2025-06-01T11:40:00Z \(20m ago\): status.loadBalancer.ingress is empty/);
            hasEvidence(f, /no load balancer events about service\/half-plus-two/);
            assert.match(f.fix, /MetalLB|NodePort/);
        });

        it("quotes SyncLoadBalancerFailed at once", () => {
            const svc = service({ age: 40 });
            const d = run(snapshot({
                pods: [pod({ ready: true })],
                services: [svc],
                events: [event(svc, { kind: "Service", reason: "SyncLoadBalancerFailed", component: "service-controller", message: "Error syncing load balancer: failed to ensure load balancer: failed to create forwarding rule: Quota 'FORWARDING_RULES' exceeded. Limit: 15.0 globally.", count: 3 })],
            }));
            const f = only(d, "load-balancer-pending");
            assert.strictEqual(f.severity, "error");
            hasEvidence(f, /SyncLoadBalancerFailed x3 .*Quota 'FORWARDING_RULES' exceeded/);
            assert.match(f.fix, /quota/);
        });

        it("is a warning while a young load balancer is provisioned, and names a foreign loadBalancerClass", () => {
            const young = run(snapshot({ pods: [pod({ ready: true })], services: [service({ age: 30 })] }));
            assert.strictEqual(only(young, "load-balancer-pending").severity, "warning");
            const classed = run(snapshot({ pods: [pod({ ready: true })], services: [service({ age: 30, loadBalancerClass: "example.com/none" })] }), { grace: 0 });
            const f = only(classed, "load-balancer-pending");
            hasEvidence(f, /spec.loadBalancerClass example.com\/none/);
            assert.match(f.fix, /No controller serves loadBalancerClass example.com\/none/);
        });

        it("does not mind Services that are not LoadBalancers", () => {
            const d = run(snapshot({ pods: [pod({ ready: true })], services: [service({ type: "ClusterIP" })] }));
            assert.strictEqual(d.healthy, true);
        });
    });

    describe("rollout", () => {
        it("names pods the API refused to create (PodSecurity)", () => {
            const d = run(snapshot({
                deployments: [deployment({ replicas: 2, ready: 0, conditions: [
                    { type: "ReplicaFailure", status: "True", reason: "FailedCreate", message: "pods \"half-plus-two-6b7c9d8f5-abcde\" is forbidden: violates PodSecurity \"restricted:latest\": runAsNonRoot != true", lastUpdateTime: ago(60), lastTransitionTime: ago(60) },
                ] })],
                services: [service({ address: "203.0.113.7" })],
            }));
            const f = only(d, "replica-failure");
            hasEvidence(f, /violates PodSecurity/);
            hasEvidence(f, /no pod labelled app.kubernetes.io\/instance=half-plus-two exists/);
            assert.match(f.fix, /restricted/);
        });

        it("folds a rollout past its deadline into the pods' finding", () => {
            const p = pod({ ready: false });
            const d = run(world({
                pods: [p],
                deployments: [deployment({ replicas: 1, ready: 0, conditions: [{ type: "Progressing", status: "False", reason: "ProgressDeadlineExceeded", message: "ReplicaSet \"half-plus-two-6b7c9d8f5\" has timed out progressing." }] })],
                logs: { [`${POD}/tf-serving`]: TF_LOGS.noVersions },
            }));
            assert.deepStrictEqual(d.findings.map((f) => f.kind), ["model-not-found"]);
            hasEvidence(d.findings[0], /Progressing False \(ProgressDeadlineExceeded\)/);
        });

        it("tells a canary that its gate rolled back, until the Deployment has rolled since", () => {
            const serving = deployment({ replicas: 2, ready: 2 });
            const rolledBack = event(serving, {
                kind: "Deployment", component: "tf-serving-canary", reason: "CanaryRolledBack", last: 120,
                message: "canary of half-plus-two failed: step 1/2 (10 %): 212 calls, 212 failed (error ratio 1.0000), no successful call: error ratio 1.0000 > maxErrorRatio 0.01. Traffic is back on r/m@sha256:1",
            });
            const ready = [pod({ ready: true }), pod({ name: `${MODEL}-6b7c9d8f5-q8w7e`, ready: true })];
            const d = run(snapshot({ pods: ready, deployments: [serving], services: [service({ address: "203.0.113.7" })], events: [rolledBack] }));
            const f = only(d, "canary-rolled-back");
            assert.strictEqual(f.severity, "warning");
            hasEvidence(f, /error ratio 1\.0000 > maxErrorRatio 0\.01/);
            assert.match(f.fix, /next `pulumi up` runs the canary again/);
            const newer = { metadata: { name: `${MODEL}-7c8d9e0f1`, namespace: "serving", labels: labels(), creationTimestamp: ago(30), ownerReferences: [{ apiVersion: "apps/v1", kind: "Deployment", name: MODEL, uid: "u", controller: true }] } };
            const later = run(snapshot({ pods: ready, deployments: [serving], services: [service({ address: "203.0.113.7" })], events: [rolledBack], replicaSets: [newer as never] }));
            assert.deepStrictEqual(later.findings.filter((x) => x.kind === "canary-rolled-back"), [], "a later release rolled the Deployment: the old failure is history");
        });

        it("calls a model unhealthy while its HPA has failed to read its metric for minutes (an info in the first ones)", () => {
            const serving = deployment({ replicas: 2, ready: 2 });
            const ready = [pod({ ready: true }), pod({ name: `${MODEL}-6b7c9d8f5-q8w7e`, ready: true })];
            // As the HPA controller sets it (kubernetes pkg/controller/podautoscaler/horizontal.go: ScalingActive False, FailedGetPodsMetric).
            const hpa = (since: number) => ({
                metadata: { name: MODEL, namespace: "tf-serving", uid: "uid-hpa", labels: labels() },
                spec: { minReplicas: 2, maxReplicas: 10, scaleTargetRef: { kind: "Deployment", name: MODEL } },
                status: { currentReplicas: 2, desiredReplicas: 2, conditions: [
                    { type: "AbleToScale", status: "True", reason: "SucceededGetScale", lastTransitionTime: ago(900) },
                    { type: "ScalingActive", status: "False", reason: "FailedGetPodsMetric", lastTransitionTime: ago(since),
                        message: "the HPA was unable to compute the replica count: unable to get metric tfserving_inference_requests_per_second: no metrics returned from custom metrics API" },
                ] },
            });
            const blind = event(hpa(600), { kind: "HorizontalPodAutoscaler", component: "horizontal-pod-autoscaler", reason: "FailedGetPodsMetric", last: 15, count: 40,
                message: "unable to get metric tfserving_inference_requests_per_second: no metrics returned from custom metrics API" });
            const d = run(snapshot({ pods: ready, deployments: [serving], services: [service({ address: "203.0.113.7" })], hpas: [hpa(600)], events: [blind] }));
            assert.strictEqual(d.healthy, false);
            const f = only(d, "autoscaler-blind");
            assert.strictEqual(f.severity, "error");
            assert.match(f.summary, /ScalingActive False for 10m/);
            hasEvidence(f, /FailedGetPodsMetric x40/);
            assert.match(f.fix, /custom metrics API .*v1beta1\.custom\.metrics\.k8s\.io/);
            const fresh = run(snapshot({ pods: ready, deployments: [serving], services: [service({ address: "203.0.113.7" })], hpas: [hpa(30)] }));
            assert.strictEqual(only(fresh, "autoscaler-blind").severity, "info");
            assert.strictEqual(fresh.healthy, true);
        });

        it("shows a leftover canary as its model's, not as a separate healthy model", () => {
            const serving = deployment({ replicas: 2, ready: 2 });
            const canaryLabels = { ...labels(), "app.kubernetes.io/instance": `${MODEL}-canary`, "tf-serving.dev/track": "canary" };
            const canary = { ...deployment({ replicas: 1, ready: 1 }) };
            canary.metadata = { ...canary.metadata, name: `${MODEL}-canary`, uid: "uid-canary", labels: canaryLabels, creationTimestamp: ago(2 * 86400) };
            const canaryPod = pod({ name: `${MODEL}-canary-5f6d7c8b9-a1b2c`, ready: true });
            canaryPod.metadata = { ...canaryPod.metadata, labels: canaryLabels };
            const ready = [pod({ ready: true }), pod({ name: `${MODEL}-6b7c9d8f5-q8w7e`, ready: true }), canaryPod];
            const d = run(snapshot({ pods: ready, deployments: [serving, canary], services: [service({ address: "203.0.113.7" })] }));
            assert.deepStrictEqual(d.checked.models.map((m) => [m.model, m.readyPods, m.desiredReplicas]), [[MODEL, 2, 2]], "one model, its serving pods");
            const f = only(d, "canary-running");
            assert.strictEqual(f.severity, "warning");
            assert.strictEqual(f.model, MODEL);
            assert.match(f.summary, /canary Deployment is 48h old.*interrupted release left it/);
            assert.match(f.fix, /kubectl delete deployment half-plus-two-canary -n tf-serving/);
            assert.deepStrictEqual(run(snapshot({ pods: ready, deployments: [serving, canary], services: [service({ address: "203.0.113.7" })] }), { model: MODEL }).findings.map((x) => x.kind), ["canary-running"], "--model includes its canary");
        });

        it("falls back to not-ready, a warning while within the startup budget", () => {
            const loading = run(world({ pods: [pod({ ready: false, age: 20 })] }));
            const f = only(loading, "not-ready");
            assert.strictEqual(f.severity, "warning");
            hasEvidence(f, /pod started 20s ago; startup budget 70s/);
            const stuck = run(world({ pods: [pod({ ready: false, age: 4000 })] }));
            assert.strictEqual(only(stuck, "not-ready").severity, "error");
        });
    });

    describe("shaping", () => {
        it("makes one finding of replicas failing the same way", () => {
            const logs: Record<string, string> = {};
            const pods = ["a1b2c", "d3e4f", "g5h6i"].map((suffix) => {
                const p = pod({ name: `${MODEL}-6b7c9d8f5-${suffix}`, ready: false });
                logs[`${p.metadata!.name}/tf-serving`] = TF_LOGS.noVersions;
                return p;
            });
            const d = run(world({ pods, logs }));
            const f = only(d, "model-not-found");
            assert.strictEqual(f.object, `pod/${MODEL}-6b7c9d8f5-a1b2c`);
            hasEvidence(f, /^the same on pod\/half-plus-two-6b7c9d8f5-d3e4f, pod\/half-plus-two-6b7c9d8f5-g5h6i$/);
        });

        it("lists errors before warnings", () => {
            const d = run(snapshot({
                pods: [pod({ ready: false, age: 10 }), pod({ name: "b", ready: false, containerStatus: { state: { waiting: { reason: "ErrImagePull", message: "unauthorized" } } } })],
                services: [service({ address: "203.0.113.7" })],
            }));
            assert.deepStrictEqual(d.findings.map((f) => `${f.severity} ${f.kind}`), ["error image-pull", "warning not-ready"]);
        });
    });
});
