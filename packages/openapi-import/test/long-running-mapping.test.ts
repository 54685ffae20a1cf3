import * as I from "@mcpsm/domain/openapi-import";
import { Storage } from "@mcpsm/domain/storage";
import { Effect } from "effect";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { actor, importBody, makeServices, resyncBody, run, type Services } from "./support/services.js";

// docs/api-rules.md §22: an operation that describes a `202 Accepted` answer (or says
// `x-ms-long-running-operation: true`) is long-running; its tool says so, and its outputSchema is the final
// answer's, never the 202's operation status.

let services: Services;
beforeEach(() => {
  services = makeServices();
});
afterEach(() => services.dispose());

const json = (schema: Record<string, unknown>) => ({ content: { "application/json": { schema } } });
const Job = { type: "object", properties: { id: { type: "string" }, size: { type: "integer" } } };
const OperationStatus = { type: "object", properties: { status: { type: "string" } } };

const document = {
  openapi: "3.0.3",
  info: { title: "Jobs API", version: "1" },
  servers: [{ url: "https://api.example.com" }],
  paths: {
    "/jobs": {
      post: {
        operationId: "startJob",
        summary: "Start a job",
        responses: { "200": { description: "done at once", ...json(Job) }, "202": json(OperationStatus) },
      },
      get: { operationId: "listJobs", responses: { "200": json({ type: "array", items: Job }) } },
    },
    "/exports": {
      post: { operationId: "startExport", responses: { "202": { description: "accepted", ...json(OperationStatus) } } },
    },
    "/vms/{name}": {
      put: {
        operationId: "createVm",
        "x-ms-long-running-operation": true,
        parameters: [{ name: "name", in: "path", required: true, schema: { type: "string" } }],
        responses: { "201": json(Job) },
      },
    },
  },
};

const imported = async () => {
  const result = await run(services, I.importProvider(actor(), importBody(document, { dryRun: true })));
  const tool = (name: string) => {
    const found = result.result.provider.tools.find((t) => t.name === name);
    if (found === undefined) throw new Error(`no tool ${name}`);
    return found;
  };
  return tool;
};

describe("long-running operations", () => {
  it("a 202 answer makes the tool say it is long-running; other tools do not", async () => {
    const tool = await imported();
    expect(tool("startJob").description).toContain("Long-running: the API accepts the request (202)");
    expect(tool("startExport").description).toContain("Long-running:");
    expect(tool("listJobs").description).not.toContain("Long-running");
  });

  it("x-ms-long-running-operation marks the operation too", async () => {
    const tool = await imported();
    expect(tool("createVm").description).toContain("Long-running:");
  });

  it("the outputSchema is the final answer's, never the 202's operation status", async () => {
    const tool = await imported();
    expect(tool("startJob").respBodyJSONSchema).toMatchObject({ properties: { size: { type: "integer" } } });
    expect(tool("startExport").respBodyJSONSchema).toBeNull();
  });

  it("the tool row keeps the flag (not only the description's note), and a re-sync that drops the 202 clears it", async () => {
    const stored = async (provider: string) => {
      const rows = await run(
        services,
        Effect.flatMap(Storage, (storage) => storage.read((tx) => tx.listTools(provider))),
      );
      return Object.fromEntries(rows.map((row) => [row.name, row.longRunning]));
    };
    const first = await run(services, I.importProvider(actor(), importBody(document)));
    const id = first.result.provider.id!;
    expect(await stored(id)).toEqual({ startJob: true, listJobs: false, startExport: true, createVm: true });
    const { "202": _accepted, ...withoutAccepted } = document.paths["/jobs"].post.responses;
    const changed = {
      ...document,
      paths: {
        ...document.paths,
        "/jobs": { ...document.paths["/jobs"], post: { ...document.paths["/jobs"].post, responses: withoutAccepted } },
      },
    };
    const resync = await run(services, I.resyncProvider(actor(), resyncBody(id, changed)));
    expect(resync.report.changed.find((tool) => tool.name === "startJob")?.fields).toContain("longRunning");
    expect((await stored(id)).startJob).toBe(false);
  });
});
