import * as assert from "assert";
import { albGatewayClass } from "../../../components/clouds/aws/loadBalancerController";
import { GatewayInput, renderGatewayObjects } from "../../../components/clouds/gateways";
import { GATEWAY_WAIT_FOR, gatewayEndpoints, plaintextGatewayWarning } from "../../../serving/gateway";
import { crdSchema, gatewayApiCrdFile, schemaProblems } from "../../support/crdSchema";

/* eslint-disable @typescript-eslint/no-explicit-any */
const INPUT = { name: "half-plus-two", labels: { app: "m" }, className: "traefik" };

describe("gateway rendering", () => {
    it("a Gateway of the class with a REST and a gRPC listener on the serving ports, plaintext without a Secret", () => {
        const { gateway } = renderGatewayObjects(INPUT) as any;
        assert.strictEqual(gateway.apiVersion, "gateway.networking.k8s.io/v1");
        assert.deepStrictEqual(gateway.metadata, {
            name: "half-plus-two", labels: { app: "m" },
            // Waits for the controller's address, which the outputs are made of (else read empty at creation).
            annotations: { "pulumi.com/waitFor": "[\"condition=Programmed\",\"jsonpath={.status.addresses[0].value}\"]" },
        });
        assert.strictEqual(gateway.spec.gatewayClassName, "traefik");
        assert.deepStrictEqual(gateway.spec.listeners.map((l: any) => [l.name, l.port, l.protocol, l.tls, l.allowedRoutes.kinds[0].kind]),
            [["rest", 8501, "HTTP", undefined, "HTTPRoute"], ["grpc", 8500, "HTTP", undefined, "GRPCRoute"]]);
    });

    it("terminates TLS on both listeners with the named Secret", () => {
        const { gateway } = renderGatewayObjects({ ...INPUT, tlsSecretName: "tfs-tls" }) as any;
        for (const listener of gateway.spec.listeners) {
            assert.strictEqual(listener.protocol, "HTTPS");
            assert.deepStrictEqual(listener.tls, { mode: "Terminate", certificateRefs: [{ group: "", kind: "Secret", name: "tfs-tls" }] });
        }
    });

    it("routes the model's own REST paths to the Service's REST port and TF Serving's gRPC services to its gRPC port, each on its own listener", () => {
        const { httpRoute, grpcRoute } = renderGatewayObjects(INPUT) as any;
        assert.deepStrictEqual(httpRoute.spec.parentRefs, [{ group: "gateway.networking.k8s.io", kind: "Gateway", name: "half-plus-two", sectionName: "rest" }]);
        assert.deepStrictEqual(httpRoute.spec.rules, [{
            matches: [
                { path: { type: "PathPrefix", value: "/v1/models/half-plus-two" } },
                ...["predict", "classify", "regress"].map((m) => ({ path: { type: "Exact", value: `/v1/models/half-plus-two:${m}` } })),
            ],
            backendRefs: [{ group: "", kind: "Service", name: "half-plus-two", port: 8501 }],
        }]);
        assert.strictEqual(grpcRoute.kind, "GRPCRoute");
        assert.strictEqual(grpcRoute.spec.parentRefs[0].sectionName, "grpc");
        assert.deepStrictEqual(grpcRoute.spec.rules[0].matches.map((m: any) => m.method.service), ["tensorflow.serving.PredictionService", "tensorflow.serving.ModelService"]);
        assert.deepStrictEqual(grpcRoute.spec.rules[0].backendRefs, [{ group: "", kind: "Service", name: "half-plus-two", port: 8500 }]);
    });

    it("gives https URLs with TLS and brackets an IPv6 address", () => {
        assert.deepStrictEqual(gatewayEndpoints("198.51.100.7", false), { restUrl: "http://198.51.100.7:8501", grpcEndpoint: "198.51.100.7:8500" });
        assert.deepStrictEqual(gatewayEndpoints("gw.example.com", true), { restUrl: "https://gw.example.com:8501", grpcEndpoint: "gw.example.com:8500" });
        assert.strictEqual(gatewayEndpoints("2001:db8::1", false).grpcEndpoint, "[2001:db8::1]:8500");
    });

    it("GKE: one HTTPS listener on 443 with the certificate map annotation, no generic health check left to the load balancer", () => {
        const { gateway, grpcRoute, healthCheckPolicy } = renderGatewayObjects({ ...INPUT, className: "gke-l7-global-external-managed", platform: "gke", certificateMap: "tfs-map" }) as any;
        assert.deepStrictEqual(gateway.metadata.annotations, { "pulumi.com/waitFor": GATEWAY_WAIT_FOR, "networking.gke.io/certmap": "tfs-map" });
        assert.deepStrictEqual(gateway.spec.listeners.map((l: any) => [l.name, l.port, l.protocol, l.tls, l.allowedRoutes.kinds[0].kind]), [["https", 443, "HTTPS", undefined, "HTTPRoute"]]);
        assert.strictEqual(grpcRoute, undefined);
        assert.strictEqual(healthCheckPolicy.apiVersion, "networking.gke.io/v1");
        assert.deepStrictEqual(healthCheckPolicy.spec.default.config, { type: "HTTP", httpHealthCheck: { portSpecification: "USE_FIXED_PORT", port: 8501, requestPath: "/v1/models/half-plus-two" } });
        assert.deepStrictEqual(healthCheckPolicy.spec.targetRef, { group: "", kind: "Service", name: "half-plus-two" });
    });

    it("GKE: one HTTPRoute sends the model's REST paths to the REST port and gRPC's /tensorflow.serving.* paths to the gRPC port", () => {
        const { httpRoute } = renderGatewayObjects({ ...INPUT, platform: "gke", tlsSecretName: "tfs-tls" }) as any;
        assert.deepStrictEqual(httpRoute.spec.parentRefs[0].sectionName, "https");
        assert.deepStrictEqual(httpRoute.spec.rules.map((r: any) => [r.matches.map((m: any) => m.path.value), r.backendRefs[0].port]), [
            [["/v1/models/half-plus-two", ...["predict", "classify", "regress"].map((m) => `/v1/models/half-plus-two:${m}`)], 8501],
            [["/tensorflow.serving.PredictionService/", "/tensorflow.serving.ModelService/"], 8500],
        ]);
    });

    it("the generic shape has no GKE health check policy", () => {
        assert.strictEqual((renderGatewayObjects(INPUT) as any).healthCheckPolicy, undefined);
        assert.deepStrictEqual(renderGatewayObjects(INPUT).policies, []);
    });

    it("one port for both when the Gateway has one listener (GKE)", () => {
        assert.deepStrictEqual(gatewayEndpoints("203.0.113.20", true, 443), { restUrl: "https://203.0.113.20:443", grpcEndpoint: "203.0.113.20:443" });
    });

    it("says loudly that a Gateway without a Secret is plaintext, and how to fix it", () => {
        assert.match(plaintextGatewayWarning("m", "traefik"), /^model "m": the Gateway \(class traefik\) has no TLS Secret \(gateway\.tlsSecretName\), so REST and gRPC are PLAINTEXT/);
    });

    const CERT = "arn:aws:acm:us-west-2:123456789012:certificate/0f1e2d3c-4b5a-6978-8a9b-0c1d2e3f4a5b";
    const EKS = { ...INPUT, className: "tf-serving-alb", platform: "eks" as const, certificateArn: CERT, drainSeconds: 30 };

    it("EKS: the serving ports as HTTPS listeners with no certificateRefs, configured by a LoadBalancerConfiguration named in infrastructure", () => {
        const { gateway, httpRoute, grpcRoute, loadBalancerConfiguration } = renderGatewayObjects(EKS) as any;
        assert.deepStrictEqual(gateway.spec.listeners.map((l: any) => [l.name, l.port, l.protocol, l.tls]), [["rest", 8501, "HTTPS", undefined], ["grpc", 8500, "HTTPS", undefined]]);
        assert.deepStrictEqual(gateway.spec.infrastructure, { parametersRef: { group: "gateway.k8s.aws", kind: "LoadBalancerConfiguration", name: "half-plus-two" } });
        assert.deepStrictEqual(gateway.metadata.annotations, { "pulumi.com/waitFor": GATEWAY_WAIT_FOR });
        // The routes are the generic ones: REST to 8501, TF Serving's two gRPC services to 8500.
        assert.deepStrictEqual(httpRoute, renderGatewayObjects(INPUT).httpRoute);
        assert.deepStrictEqual(grpcRoute, renderGatewayObjects(INPUT).grpcRoute);
        assert.strictEqual(loadBalancerConfiguration.apiVersion, "gateway.k8s.aws/v1");
        assert.deepStrictEqual(loadBalancerConfiguration.metadata, { name: "half-plus-two", labels: { app: "m" } });
        assert.deepStrictEqual(loadBalancerConfiguration.spec, {
            scheme: "internet-facing",
            listenerConfigurations: [
                { protocolPort: "HTTPS:8501", defaultCertificate: CERT, sslPolicy: "ELBSecurityPolicy-TLS13-1-2-2021-06" },
                { protocolPort: "HTTPS:8500", defaultCertificate: CERT, sslPolicy: "ELBSecurityPolicy-TLS13-1-2-2021-06" },
            ],
        });
    });

    it("EKS: the source ranges go to the ALB's security group through the LoadBalancerConfiguration", () => {
        const { loadBalancerConfiguration } = renderGatewayObjects({ ...EKS, sourceRanges: ["203.0.113.0/24", "198.51.100.7/32"] }) as any;
        assert.deepStrictEqual(loadBalancerConfiguration.spec.sourceRanges, ["203.0.113.0/24", "198.51.100.7/32"]);
        assert.ok(!("sourceRanges" in (renderGatewayObjects({ ...EKS, sourceRanges: [] }) as any).loadBalancerConfiguration.spec));
    });

    it("EKS: pod targets; REST's target group HTTP/1.1 checked on the model status, the GRPCRoute's gRPC checked on the gRPC port", () => {
        const { targetGroupConfiguration: tgc } = renderGatewayObjects(EKS) as any;
        assert.strictEqual(tgc.apiVersion, "gateway.k8s.aws/v1");
        assert.deepStrictEqual(tgc.spec.targetReference, { name: "half-plus-two" });
        const timing = { healthCheckInterval: 10, healthCheckTimeout: 5, healthyThresholdCount: 2, unhealthyThresholdCount: 2 };
        const drain = [{ key: "deregistration_delay.timeout_seconds", value: "30" }];
        assert.deepStrictEqual(tgc.spec.defaultConfiguration, {
            targetType: "ip",
            protocolVersion: "HTTP1",
            healthCheckConfig: { healthCheckPath: "/v1/models/half-plus-two", healthCheckPort: "8501", healthCheckProtocol: "HTTP", matcher: { httpCode: "200" }, ...timing },
            targetGroupAttributes: drain,
        });
        assert.deepStrictEqual(tgc.spec.routeConfigurations, [{
            routeIdentifier: { kind: "GRPCRoute" },
            targetGroupProps: {
                targetType: "ip",
                protocolVersion: "GRPC",
                healthCheckConfig: { healthCheckPath: "/AWS.ALB/healthcheck", healthCheckPort: "8500", healthCheckProtocol: "HTTP", matcher: { grpcCode: "12" }, ...timing },
                targetGroupAttributes: drain,
            },
        }]);
    });

    it("EKS: no certificate, no Gateway (an ALB serves gRPC on HTTPS only)", () => {
        // The compiler requires the certificate on EKS; a JavaScript caller may still leave it out.
        assert.throws(() => renderGatewayObjects({ ...EKS, certificateArn: undefined } as unknown as GatewayInput), /certificateArn is required/);
    });

    // A canary release writes the weights under its own field manager; spec.rules is an atomic list
    // (kubernetes-sigs/gateway-api apis/v1/httproute_types.go and grpcroute_types.go, `+listType=atomic`),
    // so that write owns all the rules. pulumi-kubernetes then applies without force unless the new
    // inputs carry `pulumi.com/patchForce: "true"` (pulumi/pulumi-kubernetes provider/pkg/await/await.go,
    // `patchForce`): without it the next change of the rules fails with a server-side apply field conflict.
    it("every route of every shape, with or without a canary, is applied by force, so a release's write never locks Pulumi out", () => {
        const shapes: GatewayInput[] = [
            { ...INPUT },
            { ...INPUT, canaryService: "half-plus-two-canary" },
            { ...INPUT, platform: "gke", canaryService: "half-plus-two-canary" },
            { ...INPUT, platform: "eks", certificateArn: "arn:aws:acm:us-east-1:111122223333:certificate/0f1e2d3c-4b5a-6978-8a9b-0c1d2e3f4a5b", canaryService: "half-plus-two-canary" },
        ];
        for (const shape of shapes) {
            const { httpRoute, grpcRoute } = renderGatewayObjects(shape);
            for (const route of [httpRoute, grpcRoute].filter((r) => r !== undefined)) {
                assert.strictEqual(route.metadata.annotations?.["pulumi.com/patchForce"], "true", `${shape.platform ?? "generic"} ${route.kind}`);
                assert.deepStrictEqual(route.metadata.labels, { app: "m" });
            }
        }
        // Only the routes: the Gateway keeps its own annotations and is written by Pulumi alone.
        assert.strictEqual(renderGatewayObjects(INPUT).gateway.metadata.annotations?.["pulumi.com/patchForce"], undefined);
    });

    it("the generic and GKE shapes have no AWS objects", () => {
        for (const objects of [renderGatewayObjects(INPUT), renderGatewayObjects({ ...INPUT, platform: "gke", certificateMap: "m" })] as any[]) {
            assert.deepStrictEqual([objects.loadBalancerConfiguration, objects.targetGroupConfiguration, (objects.gateway.spec as any).infrastructure], [undefined, undefined, undefined]);
        }
    });
});

describe("gateway objects against the Gateway API's own CRDs (standard channel, the version the loopback environment installs)", () => {
    const EKS = {
        name: "half-plus-two", labels: { app: "m" }, className: "tf-serving-alb", platform: "eks" as const,
        certificateArn: "arn:aws:acm:us-west-2:123456789012:certificate/0f1e2d3c-4b5a-6978-8a9b-0c1d2e3f4a5b",
    };
    const problems = (plural: string, o: { apiVersion: string; kind: string; metadata: object }) =>
        schemaProblems(crdSchema(gatewayApiCrdFile(plural), o.kind, o.apiVersion.split("/")[1]), { ...o, metadata: { ...o.metadata, namespace: "tf-serving" } });

    it("the EKS Gateway (HTTPS listeners without certificateRefs, infrastructure.parametersRef), its routes and the ALB GatewayClass fit", function () {
        this.timeout(300_000); // the first run downloads the module
        const { gateway, httpRoute, grpcRoute } = renderGatewayObjects(EKS);
        assert.deepStrictEqual(problems("gateways", gateway), []);
        assert.deepStrictEqual(problems("httproutes", httpRoute), []);
        assert.deepStrictEqual(problems("grpcroutes", grpcRoute!), []);
        assert.deepStrictEqual(problems("gatewayclasses", albGatewayClass("tf-serving-alb")), []);
    });

    it("with a canary, the weighted routes of every shape fit (weights 100 and 0 are valid backendRefs)", function () {
        this.timeout(300_000);
        const GKE = { name: "half-plus-two", labels: { app: "m" }, className: "gke-l7-global-external-managed", platform: "gke" as const, certificateMap: "m" };
        for (const input of [EKS, GKE, { name: "half-plus-two", labels: { app: "m" }, className: "traefik" }]) {
            const { httpRoute, grpcRoute } = renderGatewayObjects({ ...input, canaryService: "half-plus-two-canary" });
            assert.deepStrictEqual(problems("httproutes", httpRoute), [], input.className);
            assert.deepStrictEqual(grpcRoute ? problems("grpcroutes", grpcRoute) : [], [], input.className);
            assert.deepStrictEqual((httpRoute.spec as any).rules.map((r: any) => r.backendRefs.map((b: any) => `${b.name}=${b.weight}`).join(" ")),
                (httpRoute.spec as any).rules.map(() => "half-plus-two=100 half-plus-two-canary=0"));
        }
        const broken = renderGatewayObjects({ ...EKS, canaryService: "half-plus-two-canary" }).httpRoute;
        ((broken.spec as any).rules[0].backendRefs[1]).weight = "10 %";
        assert.match(problems("httproutes", broken).join("\n"), /weight/);
    });

    it("the check catches a parametersRef the API server refuses (no kind)", function () {
        this.timeout(300_000);
        const { gateway } = renderGatewayObjects(EKS);
        delete ((gateway.spec.infrastructure as { parametersRef: Record<string, unknown> }).parametersRef).kind;
        assert.match(problems("gateways", gateway).join("\n"), /\.spec\.infrastructure\.parametersRef.*kind/);
    });
});
