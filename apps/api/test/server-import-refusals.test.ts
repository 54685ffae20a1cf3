import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { startTestService } from "./support/harness.js";
import { expectInvalid, expectProblem, expectStatus } from "./support/problems.js";
import { createProvider, uniq } from "./support/records.js";
import {
  type Json,
  buildSource,
  holdings,
  importDocument,
  keysOf,
  svc,
  useExportImportWorld,
} from "./support/export-import-world.js";

// docs/api-rules.md §16, the import's refusals: a dry run or a refusal half-way stores nothing, concurrent
// imports make one copy, quotas hold, and the document is validated and bounded with every problem located.

useExportImportWorld();

describe("POST /servers/import", () => {
  it("dryRun=true answers 200 with what the import would do and stores nothing", async () => {
    const source = await svc.tenant("dry-source");
    const { server } = await buildSource(source, `client-secret-${randomBytes(12).toString("hex")}`);
    const doc = (await source.api.get(`/servers/${server.id}/export`)).body;
    const target = await svc.tenant("dry-target");
    const held = await holdings(target.api);
    const dry = await importDocument(target.api, doc, "?dryRun=true");
    expectStatus(dry, 200);
    expect(dry.headers.get("location")).toBeNull();
    expect(dry.body.server.id).toBeUndefined();
    expect(dry.body.server.providers.map((p: Json) => p.id)).toEqual([undefined, undefined]);
    expect(keysOf(dry.body.server)).not.toContain("id");
    expect(await holdings(target.api)).toEqual(held);
    const real = await importDocument(target.api, doc, "?dryRun=false");
    expectStatus(real, 201);
    const withoutIds = (report: Json) => JSON.parse(JSON.stringify(report, (k, v) => (k === "id" ? undefined : v)));
    expect(withoutIds(dry.body.report)).toEqual(withoutIds(real.body.report));
  });

  it("a refusal half-way (a provider name taken with another baseURL) stores nothing", async () => {
    const owner = await svc.tenant("import-refused");
    const taken = await createProvider(owner.api, { baseURL: "https://api.taken.example" });
    const doc = {
      format: "mcpsm.server.v1",
      server: { name: `Refused ${uniq()}` },
      providers: [
        {
          name: `Fresh ${uniq()}`,
          baseURL: "https://api.fresh.example",
          tools: [{ method: "GET", path: "/a", name: "getA" }],
          prompts: [{ name: "A prompt" }],
          resources: [{ name: "A resource", uri: "https://api.fresh.example/a" }],
        },
        { name: taken.name, baseURL: "https://api.other.example", tools: [], prompts: [], resources: [] },
      ],
      variables: [],
    };
    const held = await holdings(owner.api);
    const problem = expectProblem(await importDocument(owner.api, doc), 409, "ALREADY_EXISTS");
    expect(problem.detail).toContain("providers[1]");
    expect(await holdings(owner.api)).toEqual(held);
    const dry = await importDocument(owner.api, doc, "?dryRun=true");
    expectProblem(dry, 409, "ALREADY_EXISTS");
  });

  it("concurrent imports of one document into one tenant: one server, one copy of each provider", async () => {
    const owner = await svc.tenant("import-race");
    const doc = {
      format: "mcpsm.server.v1",
      server: { name: `Race ${uniq()}` },
      providers: [
        {
          name: `Raced ${uniq()}`,
          baseURL: "https://api.raced.example",
          tools: [{ method: "GET", path: "/r", name: "getR" }],
          prompts: [],
          resources: [],
        },
      ],
      variables: [],
    };
    const answers = await Promise.all(Array.from({ length: 4 }, () => importDocument(owner.api, doc)));
    expect(answers.map((r) => r.status).sort()).toEqual([201, 409, 409, 409]);
    for (const res of answers.filter((r) => r.status === 409)) expectProblem(res, 409, "ALREADY_EXISTS");
    const held = await holdings(owner.api);
    expect(held.servers).toHaveLength(1);
    expect(held.providers.map((p: Json) => [p.name, p.tools.length])).toEqual([[doc.providers[0]?.name, 1]]);
  });

  it("a quota reached half-way stores nothing (429)", async () => {
    const small = await startTestService({ quotas: { providersPerTenant: 2 } });
    try {
      const owner = await small.tenant("import-quota");
      await createProvider(owner.api);
      const provider = (i: number) => ({
        name: `Quota ${i} ${uniq()}`,
        baseURL: `https://api${i}.quota.example`,
        tools: [],
        prompts: [],
        resources: [],
      });
      const doc = {
        format: "mcpsm.server.v1",
        server: { name: "Quota" },
        providers: [provider(1), provider(2)],
        variables: [],
      };
      const held = await holdings(owner.api);
      expectProblem(await importDocument(owner.api, doc), 429, "RESOURCE_EXHAUSTED");
      expect(await holdings(owner.api)).toEqual(held);
    } finally {
      await small.close();
    }
  });

  it("validates the document, naming the path of every problem", async () => {
    const owner = await svc.tenant("import-invalid");
    const doc = {
      format: "mcpsm.server.v2",
      server: { name: "" },
      providers: [
        {
          name: "P",
          baseURL: "ftp://nope",
          oauth2Config: { clientID: "c", clientSecret: "not in an export" },
          tools: [
            { method: "GET", path: "/a/{x}", name: "Bad-Name" },
            { method: "GET", path: "/b", name: "same" },
            { method: "POST", path: "/c", name: "same" },
          ],
          prompts: [],
          resources: [],
          id: "AAAAAAAAAAA",
        },
      ],
      variables: [{ name: "1BAD", type: "PLAIN" }],
    };
    const paths = expectInvalid(await importDocument(owner.api, doc));
    expect(paths).toEqual(
      expect.arrayContaining([
        "format",
        "server.name",
        "providers[0].baseURL",
        "providers[0].oauth2Config.clientSecret",
        "providers[0].tools[0].name",
        "providers[0].id",
        "variables[0].name",
        "variables[0].type",
      ]),
    );
    // Past the schema: a repeated name, a placeholder its schema does not declare.
    const second = {
      format: "mcpsm.server.v1",
      server: { name: "Second" },
      providers: [
        {
          name: "P",
          baseURL: "https://api.p.example",
          tools: [
            { method: "GET", path: "/a/{x}", name: "getA" },
            { method: "POST", path: "/b", name: "getA" },
            { method: "get", path: "/a/{y}", name: "getOther" },
          ],
          prompts: [],
          resources: [],
        },
        { name: "P", baseURL: "https://api.p.example", tools: [], prompts: [], resources: [] },
      ],
      variables: [],
    };
    expect(expectInvalid(await importDocument(owner.api, second)).sort()).toEqual(
      [
        "providers[0].tools[0].pathArgsJSONSchema",
        "providers[0].tools[1].name",
        "providers[0].tools[2].path",
        "providers[0].tools[2].pathArgsJSONSchema",
        "providers[1].name",
      ].sort(),
    );
    expect(expectInvalid(await importDocument(owner.api, [1, 2]))).toEqual([""]);
    expect(expectInvalid(await importDocument(owner.api, second, "?dryRun=yes"))).toEqual(["dryRun"]);
    expect(expectInvalid(await importDocument(owner.api, second, "?dry=true"))).toEqual(["dry"]);
    expect((await holdings(owner.api)).servers).toEqual([]);
  });

  it("bounds hostile documents like every write body: size, depth, counts", async () => {
    const owner = await svc.tenant("import-hostile");
    const big = {
      format: "mcpsm.server.v1",
      server: { name: "Big", description: "x".repeat(2 * 1024 * 1024) },
      providers: [],
      variables: [],
    };
    expectProblem(await importDocument(owner.api, big), 413, "PAYLOAD_TOO_LARGE");
    let deep: Json = {};
    for (let i = 0; i < 200; i++) deep = { type: "object", properties: { a: deep } };
    const nested = {
      format: "mcpsm.server.v1",
      server: { name: "Deep" },
      providers: [
        {
          name: "D",
          baseURL: "https://api.d.example",
          tools: [{ method: "POST", path: "/d", name: "postD", reqBodyJSONSchema: deep }],
          prompts: [],
          resources: [],
        },
      ],
      variables: [],
    };
    expect([400, 413]).toContain((await importDocument(owner.api, nested)).status);
    const many = {
      format: "mcpsm.server.v1",
      server: { name: "Many" },
      providers: Array.from({ length: 1001 }, (_, i) => ({
        name: `P${i}`,
        baseURL: "https://api.many.example",
        tools: [],
        prompts: [],
        resources: [],
      })),
      variables: [],
    };
    expect(expectInvalid(await importDocument(owner.api, many))).toContain("providers");
    expect((await holdings(owner.api)).servers).toEqual([]);
  });

  it("the OpenAPI document publishes the document format as a JSON Schema", async () => {
    const res = await svc.client().get("/openapi.json");
    const schemas = res.body.components.schemas;
    expect(schemas.ServerExportDocument).toMatchObject({
      type: "object",
      required: expect.arrayContaining(["format", "server", "providers", "variables"]),
    });
    const operation = res.body.paths["/servers/import"].post;
    expect(operation.requestBody.content["application/json"].schema).toEqual({
      $ref: "#/components/schemas/ServerExportDocument",
    });
    expect(operation.parameters.map((p: Json) => p.name)).toEqual(["dryRun"]);
    expect(res.body.paths["/servers/{id}/export"].get.responses[200].content["application/json"].schema).toEqual({
      $ref: "#/components/schemas/ServerExportDocument",
    });
  });
});
