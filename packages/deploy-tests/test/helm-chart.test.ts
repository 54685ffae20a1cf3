import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { ServiceMonitor } from "@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1/ServiceMonitor";
import { Deployment } from "kubernetes-models/apps/v1/Deployment";
import { HorizontalPodAutoscaler } from "kubernetes-models/autoscaling/v2/HorizontalPodAutoscaler";
import { Job } from "kubernetes-models/batch/v1/Job";
import { Ingress } from "kubernetes-models/networking.k8s.io/v1/Ingress";
import { PodDisruptionBudget } from "kubernetes-models/policy/v1/PodDisruptionBudget";
import { Secret } from "kubernetes-models/v1/Secret";
import { Service } from "kubernetes-models/v1/Service";
import { describe, expect, it } from "vitest";
import { type Manifest, renderChart } from "./support/helm-render.js";

// The Helm chart (deploy/helm/mcpsm) rendered with its CI values files, and every object it makes checked
// against the Kubernetes OpenAPI schemas (kubernetes-models: one validator per kind, generated from the
// Kubernetes and prometheus-operator schemas), then against what the deployment relies on.

const root = join(import.meta.dirname, "..", "..", "..");
const chart = join(root, "deploy", "helm", "mcpsm");
const valuesFile = (name: string) => join(chart, "ci", `${name}-values.yaml`);

/** Every kind the chart may make, with the validator of its schema. */
const MODELS: Record<string, new (data: never) => { validate: () => void }> = {
  "apps/v1/Deployment": Deployment,
  "autoscaling/v2/HorizontalPodAutoscaler": HorizontalPodAutoscaler,
  "batch/v1/Job": Job,
  "networking.k8s.io/v1/Ingress": Ingress,
  "policy/v1/PodDisruptionBudget": PodDisruptionBudget,
  "v1/Secret": Secret,
  "v1/Service": Service,
  "monitoring.coreos.com/v1/ServiceMonitor": ServiceMonitor,
};

const validate = (manifest: Manifest) => {
  const Model = MODELS[`${manifest.apiVersion}/${manifest.kind}`];
  if (Model === undefined) throw new Error(`no schema for ${manifest.apiVersion} ${manifest.kind}`);
  new Model(manifest as never).validate();
};

// biome-ignore lint/suspicious/noExplicitAny: the test reads rendered objects (already schema-checked) freely
type Json = any;

const kinds = (manifests: ReadonlyArray<Manifest>) => manifests.map((m) => m.kind).sort();
const one = (manifests: ReadonlyArray<Manifest>, kind: string) => manifests.find((m) => m.kind === kind) as Json;

describe("the Helm chart", () => {
  it("with the least a production install gives: valid objects, probes, a hardened pod, a migration hook", async () => {
    const manifests = await renderChart(chart, [valuesFile("minimal")]);
    for (const manifest of manifests) validate(manifest);
    expect(kinds(manifests)).toEqual(["Deployment", "Job", "PodDisruptionBudget", "Secret", "Service"]);

    const deployment = one(manifests, "Deployment");
    const pod = deployment.spec.template.spec;
    const api = pod.containers[0];
    expect(deployment.spec.replicas).toBe(3);
    expect(deployment.spec.strategy.rollingUpdate).toEqual({ maxSurge: 1, maxUnavailable: 0 });
    expect(api.readinessProbe.httpGet.path).toBe("/readyz");
    expect(api.livenessProbe.httpGet.path).toBe("/healthz");
    expect(api.lifecycle.preStop.sleep.seconds).toBeGreaterThan(0);
    expect(api.securityContext.readOnlyRootFilesystem).toBe(true);
    expect(pod.securityContext.runAsNonRoot).toBe(true);
    const env = Object.fromEntries(api.env.map((e: Json) => [e.name, e.value ?? e.valueFrom.secretKeyRef]));
    expect(env.DATABASE_MIGRATE_ON_START).toBe("false");
    expect(env.ENCRYPTION_KEY).toEqual({ name: "mcpsm", key: "ENCRYPTION_KEY" });
    expect(env.REDIS_URL).toBeUndefined();

    const job = one(manifests, "Job");
    expect(job.metadata.annotations["helm.sh/hook"]).toBe("pre-install,pre-upgrade");
    expect(job.spec.template.spec.containers[0].args).toEqual(["dist/cli/migrate.js"]);
    const secret = one(manifests, "Secret");
    expect(Buffer.from(secret.data.DATABASE_URL, "base64").toString()).toContain("postgres://");
    // The Secret exists before the migration Job that reads it.
    expect(Number(secret.metadata.annotations["helm.sh/hook-weight"])).toBeLessThan(
      Number(job.metadata.annotations["helm.sh/hook-weight"]),
    );
  });

  it("with every option on: Ingress, HPA, ServiceMonitor on the metrics port, secrets from existing Secrets", async () => {
    const manifests = await renderChart(chart, [valuesFile("full")], { name: "prod", namespace: "mcp", revision: 2 });
    for (const manifest of manifests) validate(manifest);
    // An upgrade (revision 2) of release "prod": its own names, a migration Job of its own.
    expect(one(manifests, "Deployment").metadata.name).toBe("prod-mcpsm");
    expect(one(manifests, "Job").metadata.name).toBe("prod-mcpsm-migrate-2");
    expect(kinds(manifests)).toEqual([
      "Deployment",
      "HorizontalPodAutoscaler",
      "Ingress",
      "Job",
      "PodDisruptionBudget",
      "Service",
      "ServiceMonitor",
    ]);
    // The HPA owns the replica count.
    expect(one(manifests, "Deployment").spec.replicas).toBeUndefined();
    const monitor = one(manifests, "ServiceMonitor");
    const service = one(manifests, "Service");
    expect(service.spec.ports.map((p: Json) => p.name)).toContain(monitor.spec.endpoints[0].port);
    const env = one(manifests, "Deployment").spec.template.spec.containers[0].env;
    expect(env.find((e: Json) => e.name === "REDIS_URL").valueFrom.secretKeyRef.name).toBe("mcpsm-redis");
    expect(env.find((e: Json) => e.name === "CORS_ORIGINS").value).toBe("https://console.example.com");
  });

  it("refuses to render without an encryption key or a database", async () => {
    await expect(renderChart(chart, [])).rejects.toThrow(/is required/);
  });

  it("sets only environment variables the README documents", async () => {
    const readme = await readFile(join(root, "README.md"), "utf8");
    const manifests = await renderChart(chart, [valuesFile("full")]);
    const names = one(manifests, "Deployment").spec.template.spec.containers[0].env.map((e: Json) => e.name);
    expect(names.filter((name: string) => !readme.includes(`\`${name}\``))).toEqual([]);
  });
});
