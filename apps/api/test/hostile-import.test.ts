import { Effect, Exit, Layer } from "effect";
import { describe, expect, it } from "vitest";
import { gated, ImportGate, importGate } from "../src/openapi-import/import-gate.js";
import {
  emptyCollectionsBomb,
  flowList,
  manyKeys,
  refChain,
  swaggerAliasBomb,
} from "./support/hostile-descriptions.js";
import { startTestService } from "./support/harness.js";
import { serviceForFile } from "./support/file-service.js";

// Issue 24: descriptions of a few kilobytes that stalled or killed the service. Each is a dry run answered
// 4xx naming import.document and the limit it broke (or, for the $ref chains, a compact 200), and nothing is stored. The description is read in a
// worker thread (never on the event loop that answers /healthz), so a slow one delays only itself.

const world = serviceForFile({ alice: "hostile" });

const dryRun = (document: unknown) => world.alice.api.post("/providers/import", { import: { document, dryRun: true } });

const refusedNaming = async (document: unknown, limit: RegExp) => {
  const res = await dryRun(document);
  expect(res.status, res.text.slice(0, 300)).toBe(400);
  expect(res.body.code).toBe("INVALID_ARGUMENT");
  expect(res.body.errors[0]).toEqual({ path: "import.document", message: expect.stringMatching(limit) });
  expect((await world.alice.api.get("/providers")).body.providers).toEqual([]);
  expect((await world.svc.client().get("/healthz")).status).toBe(200);
};

describe("hostile descriptions answer 4xx naming the limit, and store nothing", () => {
  // A chain of shared schemas no longer expands at all: each one is held once in the tool schema's `$defs`
  // (docs/api-rules.md §15a), so the chain imports as a compact tool. Its expansion limit (32 MiB, counted
  // on every path) still stands behind it in the worker, tested in packages/openapi-import.
  const compactChain = async (levels: number, salt: string) => {
    const res = await dryRun(refChain(levels, salt));
    expect(res.status, res.text.slice(0, 300)).toBe(200);
    const [tool] = res.body.provider.tools;
    expect(Buffer.byteLength(JSON.stringify(tool.reqBodyJSONSchema))).toBeLessThan(64 * 1024);
    expect(Object.keys(tool.reqBodyJSONSchema.$defs).sort()).toEqual(
      Array.from({ length: levels }, (_, i) => `S${i}`).sort(),
    );
    expect((await world.alice.api.get("/providers")).body.providers).toEqual([]);
    expect((await world.svc.client().get("/healthz")).status).toBe(200);
  };

  it("a $ref chain S1..S6 sent many times with different leaves: imported compact, each schema once", async () => {
    for (let i = 0; i < 5; i++) await compactChain(6, `leaf ${i}`);
  });

  it("a $ref chain S1..S8: imported compact too", async () => {
    await compactChain(8, "leaf");
  });

  it("YAML with 100,000 keys in one mapping: duplicate keys found in linear time", async () => {
    await refusedNaming(manyKeys(100_000), /the key 'k0' appears twice in one mapping at line \d+/);
  });

  it("Swagger 2.0 with an alias bomb: refused before it is converted", async () => {
    await refusedNaming(swaggerAliasBomb(), /YAML aliases that expand into more than 100,000 nodes/);
  });

  it("an alias bomb of empty collections: every collection counts", async () => {
    await refusedNaming(emptyCollectionsBomb(), /YAML aliases that expand into more than 100,000 nodes/);
  });

  it("a YAML flow list of a million items: refused before it is parsed", async () => {
    await refusedNaming(flowList(1_000_000), /holds 1,000,00\d YAML entries .*at most 500,000/);
  });
});

describe("the reader's own limits", () => {
  it("a read that passes the deadline ends its worker and answers 400 naming the limit, never a 500", async () => {
    const quick = await startTestService({ imports: { deadlineMs: 100 } });
    try {
      const bob = await quick.tenant("slow");
      // 100,000 keys take the YAML parser well over 100 ms.
      const res = await bob.api.post("/providers/import", { import: { document: manyKeys(100_000), dryRun: true } });
      expect(res.status).toBe(400);
      expect(res.body.errors).toEqual([
        { path: "import.document", message: "could not be read within 0.1 s: it is too complex" },
      ]);
      // A new worker reads the next description.
      const next = await bob.api.post("/providers/import", {
        import: { document: { ...refChain(1, "small") }, dryRun: true },
      });
      expect(next.status).toBe(200);
    } finally {
      await quick.close();
    }
  });

  it("a tenant running as many imports as it may gets 429 for one more", async () => {
    const layer = Layer.succeed(ImportGate, importGate(1));
    const exit = await Effect.runPromiseExit(
      Effect.gen(function* () {
        yield* Effect.fork(gated("t", Effect.never));
        yield* Effect.yieldNow();
        return yield* gated("t", Effect.succeed(1));
      }).pipe(Effect.provide(layer)),
    );
    expect(Exit.isFailure(exit) && JSON.stringify(exit.cause)).toContain(
      "this tenant is running 1 imports; it may run at most 1 at once",
    );
    const other = await Effect.runPromise(gated("u", Effect.succeed(2)).pipe(Effect.provide(layer)));
    expect(other).toBe(2);
  });
});

describe("descriptions common tools accept (docs/api-rules.md §15a)", () => {
  it("YAML 1.1 as Docker Engine writes it: double-quoted text continued at the key's indentation", async () => {
    const text = [
      'swagger: "2.0"',
      'info: {title: Engine, version: "1.41"}',
      "host: api.example.com",
      "schemes: [https]",
      "paths:",
      "  /containers/{id}/start:",
      "    post:",
      "      operationId: ContainerStart",
      "      parameters:",
      "        - name: id",
      "          in: path",
      "          required: true",
      "          type: string",
      '          description: "A list of string values to customize labels for MLS',
      '          systems, such as SELinux."',
      "      responses:",
      "        204: {description: no error}",
      "",
    ].join("\n");
    const res = await dryRun(text);
    expect(res.status, res.text.slice(0, 300)).toBe(200);
    expect(res.body.provider.tools.map((t: { name: string }) => t.name)).toEqual(["startContainer"]);
    expect(res.body.provider.tools[0].pathArgsJSONSchema.properties.id.description).toBe(
      "A list of string values to customize labels for MLS systems, such as SELinux.",
    );
  });

  it("every dangling $ref is listed, the default response's included", async () => {
    const missing = (to: string) => ({ $ref: `#/components/${to}` });
    const res = await dryRun({
      openapi: "3.0.3",
      info: { title: "Missing", version: "1" },
      servers: [{ url: "https://api.example.com" }],
      paths: {
        "/orders": {
          get: { parameters: [missing("parameters/PageSize")], responses: { "200": { description: "ok" } } },
          post: {
            requestBody: { content: { "application/json": { schema: missing("schemas/NewOrder") } } },
            responses: { "201": { description: "created" }, default: missing("responses/Error") },
          },
        },
      },
    });
    expect(res.status).toBe(400);
    expect(res.body.errors.map((p: { path: string }) => p.path)).toEqual([
      "import.document.paths['/orders'].get.parameters[0].$ref",
      "import.document.paths['/orders'].post.requestBody.content['application/json'].schema.$ref",
      "import.document.paths['/orders'].post.responses.default.$ref",
    ]);
  });
});

describe("anonymous client registration (POST /oauth/register) is bounded", () => {
  const register = (metadata: unknown) =>
    fetch(`${world.svc.url}/oauth/register`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(metadata),
    }).then(async (res) => ({ status: res.status, body: await res.json() }));

  it("a client with 1,000 redirect URIs, or one redirecting to plain http elsewhere, is refused", async () => {
    const flood = Array.from({ length: 1000 }, (_, i) => `https://attacker.example/${i}/${"x".repeat(30)}`);
    expect(await register({ client_name: "flood", redirect_uris: flood })).toMatchObject({
      status: 413,
      body: { error: "invalid_request", error_description: "a registration may be at most 8192 bytes" },
    });
    expect(await register({ client_name: "many", redirect_uris: flood.slice(0, 11) })).toMatchObject({
      status: 400,
      body: { error: "invalid_redirect_uri" },
    });
    expect(await register({ client_name: "plain", redirect_uris: ["http://attacker.example/cb"] })).toMatchObject({
      status: 400,
      body: { error: "invalid_redirect_uri", error_description: expect.stringContaining("loopback") },
    });
    expect((await register({ client_name: "native", redirect_uris: ["http://127.0.0.1:8765/callback"] })).status).toBe(
      201,
    );
  });
});

describe("token URLs are checked against the upstream address policy when written", () => {
  it("an oauth2Config naming a refused address answers 400 at that field; a public one is stored", async () => {
    const oauth2 = (tokenURL: string, authURL = "https://auth.example.com/authorize") => ({
      clientID: "client",
      authURL,
      tokenURL,
    });
    const metadata = await world.alice.api.post("/providers", {
      provider: {
        name: "Metadata",
        baseURL: "https://api.example.com",
        oauth2Config: oauth2("http://169.254.169.254/token"),
      },
    });
    expect(metadata.status).toBe(400);
    expect(metadata.body.errors).toEqual([
      { path: "provider.oauth2Config.tokenURL", message: expect.stringContaining("169.254.169.254 (linkLocal)") },
    ]);
    const loopback = await world.alice.api.post("/providers", {
      provider: {
        name: "Loopback",
        baseURL: "https://api.example.com",
        oauth2Config: oauth2("https://auth.example.com/token", "http://localhost:8080/authorize"),
      },
    });
    expect(loopback.body.errors).toEqual([
      { path: "provider.oauth2Config.authURL", message: expect.stringContaining("loopback") },
    ]);
    const created = await world.alice.api.post("/providers", {
      provider: {
        name: "Public",
        baseURL: "https://api.example.com",
        oauth2Config: oauth2("https://auth.example.com/token"),
      },
    });
    expect(created.status).toBe(201);
    const patched = await world.alice.api.patch(`/providers/${created.body.provider.id}`, {
      provider: { oauth2Config: { tokenURL: "http://[::ffff:10.0.0.1]/token" } },
    });
    expect(patched.status).toBe(400);
    expect(patched.body.errors[0].path).toBe("provider.oauth2Config.tokenURL");
    await world.alice.api.delete(`/providers/${created.body.provider.id}`);
  });
});
