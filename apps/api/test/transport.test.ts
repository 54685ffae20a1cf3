import { Unavailable } from "@mcpsm/domain/errors";
import { Storage } from "@mcpsm/domain/storage";
import { Effect, Layer } from "effect";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Client, type Res, startTestService, type TestService } from "./support/harness.js";
import { serviceForFile } from "./support/file-service.js";
import { expectInvalid, expectProblem, expectStatus } from "./support/problems.js";
import { createProvider, createServer, unknownId } from "./support/records.js";

// docs/api-rules.md §1 (transport) and §2 (the problem shape), on a real listening service.

const world = serviceForFile({ alice: "alice" });
let anonymous: Client;

beforeAll(async () => {
  anonymous = world.svc.client();
});

describe("reserved paths", () => {
  it("/healthz answers 200 without a token", async () => {
    const res = await anonymous.get("/healthz");
    expectStatus(res, 200);
    expect(res.headers.get("content-type")).toMatch(/^application\/json/);
  });

  it("/readyz answers 200 without a token when the store answers", async () => {
    const res = await anonymous.get("/readyz");
    expectStatus(res, 200);
  });

  it("/.well-known/jwks.json publishes the dev-auth public key (and never its private part)", async () => {
    const res = await anonymous.get("/.well-known/jwks.json");
    expectStatus(res, 200);
    expect(Array.isArray(res.body.keys)).toBe(true);
    expect(res.body.keys).toHaveLength(1);
    const [key] = res.body.keys;
    expect(key).toMatchObject({ kty: "EC", crv: "P-256", alg: "ES256" });
    expect(typeof key.x).toBe("string");
    expect(typeof key.kid).toBe("string");
    expect(key.d).toBeUndefined();
  });
});

describe("unknown paths and methods", () => {
  it("an unknown path answers 404 in the problem shape", async () => {
    expectProblem(await world.alice.api.get("/nothing-here"), 404, "NOT_FOUND");
    expectProblem(await world.alice.api.get("/servers/Ab3dE5gH9jK/unknown"), 404, "NOT_FOUND");
    expectProblem(await anonymous.get("/v1/servers"), 404, "NOT_FOUND");
  });

  it.each([
    ["PUT", "/servers", ["GET", "POST"]],
    ["DELETE", "/servers", ["GET", "POST"]],
    ["POST", "/servers/Ab3dE5gH9jK", ["GET", "PATCH", "DELETE"]],
    ["PUT", "/providers/Ab3dE5gH9jK", ["GET", "PATCH", "DELETE"]],
    ["PATCH", "/variables", ["GET", "POST"]],
    ["PUT", "/servers/Ab3dE5gH9jK/tools/Ab3dE5gH9jK", ["GET", "PATCH", "DELETE"]],
    ["POST", "/providers/Ab3dE5gH9jK/prompts/Ab3dE5gH9jK", ["GET", "PATCH", "DELETE"]],
  ])("%s %s answers 405 with an Allow header", async (method, path, allowed) => {
    const res = await world.alice.api.request(method, path);
    expectProblem(res, 405, "METHOD_NOT_ALLOWED");
    const allow = (res.headers.get("allow") ?? "").split(",").map((m) => m.trim());
    for (const m of allowed) expect(allow).toContain(m);
    expect(allow).not.toContain(method);
  });
});

describe("methods no route knows", () => {
  it.each(["PROPFIND", "PURGE"])("%s /servers answers 405 in the problem shape", async (method) => {
    const res = await world.alice.api.request(method, "/servers");
    expectProblem(res, 405, "METHOD_NOT_ALLOWED");
  });
});

describe("X-Request-Id", () => {
  it("echoes a sane caller id on success and on errors", async () => {
    const ok = await world.alice.api.get("/servers", { "x-request-id": "abc-123.XYZ:9" });
    expectStatus(ok, 200);
    expect(ok.headers.get("x-request-id")).toBe("abc-123.XYZ:9");
    const problem = await anonymous.get("/servers", { "x-request-id": "trace_42" });
    expectProblem(problem, 401, "UNAUTHENTICATED");
    expect(problem.body.requestId).toBe("trace_42");
  });

  it.each([
    ["spaces and markup", "<script>alert(1)</script> x"],
    ["too long", "a".repeat(300)],
    ["quotes", '"quoted"'],
  ])("replaces an insane caller id (%s) by its own", async (_label, given) => {
    const res = await world.alice.api.get("/servers", { "x-request-id": given });
    expectStatus(res, 200);
    const id = res.headers.get("x-request-id");
    expect(id).not.toBe(given);
    expect(id).toMatch(/^[A-Za-z0-9._:-]{1,128}$/);
  });

  it("is present on every kind of response, unique per request when not given", async () => {
    const answers: Array<Res> = [
      await anonymous.get("/healthz"),
      await anonymous.get("/readyz"),
      await world.alice.api.get("/servers"),
      await world.alice.api.get(`/servers/${unknownId()}`),
      await anonymous.get("/servers"),
      await world.alice.api.get("/nope"),
      await world.alice.api.request("PUT", "/servers"),
      await world.alice.api.post("/servers", "{not json"),
    ];
    const ids = answers.map((r) => r.headers.get("x-request-id"));
    for (const id of ids) expect(id).toMatch(/^[A-Za-z0-9._:-]{1,128}$/);
    expect(new Set(ids).size).toBe(ids.length);
  });
});

describe("request bodies", () => {
  it("malformed JSON answers 400", async () => {
    const paths = expectInvalid(await world.alice.api.post("/servers", '{"server": {"name": "x",}}'));
    expect(paths.length).toBeGreaterThan(0);
    expectInvalid(await world.alice.api.post("/providers", "nope"));
    expectInvalid(await world.alice.api.post("/variables", '{"variable":'));
  });

  it("a body that is not an object, or lacks the envelope, answers 400", async () => {
    expect(expectInvalid(await world.alice.api.post("/servers", []))).toEqual([""]);
    expect(expectInvalid(await world.alice.api.post("/servers", "null"))).toEqual([""]);
    expect(expectInvalid(await world.alice.api.post("/servers", 42))).toEqual([""]);
    // The fields without their envelope: the envelope is required and the bare field is unknown.
    const paths = expectInvalid(await world.alice.api.post("/servers", { name: "bare" }));
    expect(paths).toEqual(expect.arrayContaining(["server", "name"]));
    expect(expectInvalid(await world.alice.api.post("/servers", { server: "x" }))).toContain("server");
    expect(expectInvalid(await world.alice.api.post("/providers", {}))).toEqual(["provider"]);
    // No body at all on a create.
    expect(expectInvalid(await world.alice.api.request("POST", "/variables"))).toHaveLength(1);
  });

  it("an unknown top-level field next to the envelope answers 400 naming it", async () => {
    const paths = expectInvalid(await world.alice.api.post("/servers", { server: { name: "ok name" }, servre: {} }));
    expect(paths).toEqual(["servre"]);
  });

  it('a "__proto__" field is an unknown field like any other, never a way to smuggle fields in', async () => {
    const smuggled = await world.alice.api.post("/servers", '{"server": {"__proto__": {"name": "smuggled"}}}');
    expect(expectInvalid(smuggled).sort()).toEqual(["server.__proto__", "server.name"]);
    const beside = await world.alice.api.post(
      "/variables",
      '{"variable": {"type": "ENV", "name": "PROTO", "value": "v", "__proto__": {"type": "SECRET"}}}',
    );
    expect(expectInvalid(beside)).toEqual(["variable.__proto__"]);
    const top = await world.alice.api.post(
      "/providers",
      '{"__proto__": {"provider": {"name": "p", "baseURL": "https://x.example"}}}',
    );
    expect(expectInvalid(top).sort()).toEqual(["__proto__", "provider"]);
    expect((await world.alice.api.get("/servers")).body.servers.map((x: { name: string }) => x.name)).not.toContain(
      "smuggled",
    );
    expect((await world.alice.api.get("/variables")).body.variables.map((x: { name: string }) => x.name)).not.toContain(
      "PROTO",
    );
  });

  it("a body that is not JSON answers 415", async () => {
    for (const type of ["text/plain", "application/x-www-form-urlencoded", "application/xml"]) {
      const res = await world.alice.api.request("POST", "/servers", {
        body: JSON.stringify({ server: { name: "x" } }),
        headers: { "content-type": type },
      });
      expectProblem(res, 415, "UNSUPPORTED_MEDIA_TYPE");
    }
    const servers = await world.alice.api.get("/servers");
    expect(servers.body.servers).toEqual([]);
  });

  it("a body without a Content-Type answers 415", async () => {
    // A byte body makes fetch send no Content-Type at all.
    const response = await fetch(`${world.svc.url}/servers`, {
      method: "POST",
      headers: { authorization: `Bearer ${world.alice.token}` },
      body: new TextEncoder().encode(JSON.stringify({ server: { name: "untyped" } })),
    });
    const text = await response.text();
    expectProblem(
      { status: response.status, headers: response.headers, text, body: JSON.parse(text) },
      415,
      "UNSUPPORTED_MEDIA_TYPE",
    );
    expect((await world.alice.api.get("/servers")).body.servers.map((s: { name: string }) => s.name)).not.toContain(
      "untyped",
    );
  });

  it("application/json with a UTF-8 charset is accepted", async () => {
    const res = await world.alice.api.request("POST", "/variables", {
      body: JSON.stringify({ variable: { type: "ENV", name: "CHARSET_OK", value: "ü" } }),
      headers: { "content-type": "application/json; charset=UTF-8" },
    });
    expectStatus(res, 201);
    expect(res.body.variable.value).toBe("ü");
  });

  it("a body over 1 MiB answers 413; one just under is read", async () => {
    const big = JSON.stringify({ variable: { type: "ENV", name: "BIG", value: "x".repeat(1024 * 1024) } });
    expectProblem(await world.alice.api.post("/variables", big), 413, "PAYLOAD_TOO_LARGE");
    // Just under the limit the body is read and validated (the value is over 64 KiB, so 400, not 413).
    const under = JSON.stringify({ variable: { type: "ENV", name: "BIG", value: "x".repeat(1024 * 1024 - 100) } });
    expect(under.length).toBeLessThan(1024 * 1024);
    expect(expectInvalid(await world.alice.api.post("/variables", under))).toEqual(["variable.value"]);
  });

  it("a chunked body (no Content-Length) over 1 MiB answers 413", async () => {
    const chunk = new TextEncoder().encode("x".repeat(64 * 1024));
    let sent = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent === 0)
          controller.enqueue(new TextEncoder().encode('{"variable":{"type":"ENV","name":"CHUNKED","value":"'));
        if (sent >= 20) {
          controller.enqueue(new TextEncoder().encode('"}}'));
          controller.close();
          return;
        }
        controller.enqueue(chunk);
        sent++;
      },
    });
    const response = await fetch(`${world.svc.url}/variables`, {
      method: "POST",
      headers: { authorization: `Bearer ${world.alice.token}`, "content-type": "application/json" },
      body,
      duplex: "half",
    } as RequestInit);
    const text = await response.text();
    expectProblem(
      { status: response.status, headers: response.headers, text, body: JSON.parse(text) },
      413,
      "PAYLOAD_TOO_LARGE",
    );
    // The unread rest of the body must not poison the keep-alive connection for the next requests.
    for (let i = 0; i < 5; i++) {
      const next = await world.alice.api.get("/variables");
      expectStatus(next, 200);
      expect(next.body.variables.map((v: { name: string }) => v.name)).not.toContain("CHUNKED");
    }
  });

  it("a JSON body nested absurdly deep answers 400", async () => {
    const deep = `{"server":{"name":"deep","providers":${"[".repeat(5000)}${"]".repeat(5000)}}}`;
    expectInvalid(await world.alice.api.post("/servers", deep));
  });

  it("a PATCH body is held to the same rules", async () => {
    const provider = await createProvider(world.alice.api);
    expectInvalid(await world.alice.api.patch(`/providers/${provider.id}`, "{"));
    const res = await world.alice.api.request("PATCH", `/providers/${provider.id}`, {
      body: "name=x",
      headers: { "content-type": "text/plain" },
    });
    expectProblem(res, 415, "UNSUPPORTED_MEDIA_TYPE");
    const unchanged = await world.alice.api.get(`/providers/${provider.id}`);
    expect(unchanged.body.provider.version).toBe(1);
  });
});

describe("responses", () => {
  it("success bodies are JSON; problems are application/problem+json with every field", async () => {
    const server = await createServer(world.alice.api);
    const res = await world.alice.api.get(`/servers/${server.id}`);
    expectStatus(res, 200);
    expect(res.headers.get("content-type")).toMatch(/^application\/json/);
    const missing = await world.alice.api.get(`/servers/${unknownId()}`);
    const body = expectProblem(missing, 404, "NOT_FOUND");
    expect(Object.keys(missing.body).sort()).toEqual(["code", "detail", "requestId", "status", "title", "type"]);
    expect(body.detail).toContain("does not exist");
  });

  it("a malformed path id answers 400 naming the parameter", async () => {
    expect(expectInvalid(await world.alice.api.get("/servers/short"))).toEqual(["id"]);
    expect(expectInvalid(await world.alice.api.get("/providers/has-a-dash!"))).toEqual(["id"]);
    expect(expectInvalid(await world.alice.api.delete("/variables/abcdefghijkl"))).toEqual(["id"]);
    const provider = await createProvider(world.alice.api);
    expect(expectInvalid(await world.alice.api.get(`/providers/${provider.id}/tools/x`))).toEqual(["toolID"]);
    expect(expectInvalid(await world.alice.api.get(`/providers/${provider.id}/prompts/x`))).toEqual(["promptID"]);
    expect(expectInvalid(await world.alice.api.get(`/providers/${provider.id}/resources/x`))).toEqual(["resourceID"]);
  });

  it("no request so far made the service log an unhandled error", () => {
    const errors = world.svc.logs.filter((line) => typeof line.level === "number" && line.level >= 50);
    expect(errors).toEqual([]);
    // Every request was logged once, with its id, and without the Authorization header.
    const requests = world.svc.logs.filter((line) => line.msg === "request");
    expect(requests.length).toBeGreaterThan(20);
    expect(JSON.stringify(world.svc.logs)).not.toContain(world.alice.token);
  });
});

describe("a store that cannot be reached", () => {
  let broken: TestService;
  const down = () =>
    Effect.fail(new Unavailable({ detail: "the database is unavailable (ECONNREFUSED); try again later" }));

  beforeAll(async () => {
    broken = await startTestService({
      brokenStorage: Layer.succeed(Storage, { transaction: down, read: down } as unknown as typeof Storage.Service),
    });
  });
  afterAll(() => broken?.close());

  it("/healthz stays 200 while /readyz answers 503", async () => {
    expectStatus(await broken.client().get("/healthz"), 200);
    expectProblem(await broken.client().get("/readyz"), 503, "UNAVAILABLE");
  });

  it("management operations answer 503 UNAVAILABLE; the process stays up", async () => {
    const tenant = await broken.tenant("down");
    for (const res of [
      await tenant.api.get("/servers"),
      await tenant.api.post("/variables", { variable: { type: "ENV", name: "X", value: "y" } }),
      await tenant.api.get("/providers"),
    ]) {
      expectProblem(res, 503, "UNAVAILABLE");
    }
    expectStatus(await broken.client().get("/healthz"), 200);
    // Authentication and validation still come first.
    expectProblem(await broken.client().get("/servers"), 401, "UNAUTHENTICATED");
    expectInvalid(await tenant.api.post("/servers", { server: {} }));
  });
});
