import { request as httpRequest } from "node:http";
import { Storage } from "@mcpsm/domain/storage";
import { ConfigProvider, Effect, Either, Layer } from "effect";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { appConfig } from "../src/config/app-config.js";
import { DEFAULT_SECURITY_SETTINGS } from "../src/config/security-config.js";
import { DOCS_CSP } from "../src/http/api-docs.js";
import { consoleCsp } from "../src/http/console-page.js";
import { type Res, startTestService, type TestService } from "./support/harness.js";
import { serviceForFile } from "./support/file-service.js";
import { expectProblem, expectStatus } from "./support/problems.js";
import { createServer, unknownId } from "./support/records.js";

// OWASP API8:2023 Security Misconfiguration: security headers on every kind of answer, CORS off unless
// configured (and then only for the listed origins, without credentials), errors that reveal nothing, no
// TRACE echo, and configuration errors that never print the secrets they are about.

const world = serviceForFile({ alice: "headers" });

const API_CSP = "default-src 'none'; frame-ancestors 'none'";

const expectHardened = (res: Res, what: string, csp = API_CSP, cache = "no-store") => {
  expect(res.headers.get("x-content-type-options"), what).toBe("nosniff");
  expect(res.headers.get("x-frame-options"), what).toBe("DENY");
  expect(res.headers.get("referrer-policy"), what).toBe("no-referrer");
  expect(res.headers.get("content-security-policy"), what).toBe(csp);
  expect(res.headers.get("cache-control"), what).toBe(cache);
  expect(res.headers.get("x-powered-by"), what).toBeNull();
  expect(res.headers.get("server"), what).toBeNull();
  expect(res.headers.get("access-control-allow-origin"), what).toBeNull();
};

describe("security headers on every kind of answer", () => {
  it("probes, the document, management answers of every status, unknown paths and methods, the MCP endpoint", async () => {
    const server = await createServer(world.alice.api);
    const answers: Array<[string, Res]> = [
      ["healthz", await world.svc.client().get("/healthz")],
      ["readyz", await world.svc.client().get("/readyz")],
      ["openapi.json", await world.svc.client().get("/openapi.json")],
      ["200", await world.alice.api.get(`/servers/${server.id}`)],
      ["201", await world.alice.api.post(`/servers/${server.id}/tokens`, { token: { name: "t" } })],
      ["204", await world.alice.api.delete(`/servers/${server.id}`)],
      ["400", await world.alice.api.post("/servers", "{")],
      ["401", await world.svc.client().get("/servers")],
      ["403", await world.svc.client(await world.svc.token(world.alice.id, [])).get("/servers")],
      ["404", await world.alice.api.get(`/servers/${unknownId()}`)],
      ["404 path", await world.alice.api.get("/admin")],
      ["405", await world.alice.api.request("PUT", "/servers")],
      [
        "415",
        await world.alice.api.request("POST", "/servers", { body: "x", headers: { "content-type": "text/plain" } }),
      ],
    ];
    for (const [what, res] of answers) expectHardened(res, what);
    // Public keys and the page's static files may be cached; the page has its own strict policy.
    expectHardened(await world.svc.client().get("/.well-known/jwks.json"), "jwks", API_CSP, "public, max-age=300");
    expectHardened(await world.svc.client().get("/docs"), "docs", DOCS_CSP);
    expectHardened(
      await world.svc.client().get("/docs/swagger-ui.css"),
      "docs asset",
      DOCS_CSP,
      "public, max-age=3600",
    );
    // The console's page admits style elements with a nonce that is fresh for every answer.
    const consolePage = await world.svc.client().get("/console");
    const nonce = /'nonce-([A-Za-z0-9+/=]{24})'/.exec(consolePage.headers.get("content-security-policy") ?? "")?.[1];
    expect(nonce).toBeDefined();
    expectHardened(consolePage, "console", consoleCsp([], nonce));
    expect(consolePage.text).toContain(`<meta property="csp-nonce" nonce="${nonce}" />`);
    const again = await world.svc.client().get("/console");
    expect(again.headers.get("content-security-policy")).not.toContain(`'nonce-${nonce}'`);
    const script = /src="\/console\/([^"]+\.js)"/.exec(consolePage.text)?.[1];
    expect(script).toBeDefined();
    expectHardened(
      await world.svc.client().get(`/console/${script}`),
      "console asset",
      consoleCsp(),
      "public, max-age=31536000, immutable",
    );
    const mcp = await fetch(`${world.svc.url}/mcp/${unknownId()}`, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
    });
    expect(mcp.headers.get("x-content-type-options")).toBe("nosniff");
    expect(mcp.headers.get("x-powered-by")).toBeNull();
  });
});

describe("CORS", () => {
  const preflight = (url: string, origin: string) =>
    fetch(`${url}/servers`, {
      method: "OPTIONS",
      headers: { origin, "access-control-request-method": "POST", "access-control-request-headers": "authorization" },
    });

  it("is off by default: no Access-Control-* header for any origin, preflights included", async () => {
    const res = await world.alice.api.get("/servers", { origin: "https://evil.example" });
    expectStatus(res, 200);
    expect([...res.headers.keys()].filter((h) => h.startsWith("access-control-"))).toEqual([]);
    const pre = await preflight(world.svc.url, "https://evil.example");
    expect([...pre.headers.keys()].filter((h) => h.startsWith("access-control-"))).toEqual([]);
  });

  describe("with CORS_ORIGINS", () => {
    let cors: TestService;
    beforeAll(async () => {
      cors = await startTestService({
        security: { ...DEFAULT_SECURITY_SETTINGS, corsOrigins: ["https://app.example.com"] },
      });
    });
    afterAll(() => cors?.close());

    it("answers the listed origin only, exposes the API's headers, never allows credentials", async () => {
      const api = cors.client(await cors.token("cors"));
      const ok = await api.get("/servers", { origin: "https://app.example.com" });
      expect(ok.headers.get("access-control-allow-origin")).toBe("https://app.example.com");
      expect(ok.headers.get("access-control-expose-headers")).toContain("ETag");
      expect(ok.headers.get("access-control-expose-headers")).toContain("Retry-After");
      expect(ok.headers.get("vary")).toContain("Origin");
      expect(ok.headers.get("access-control-allow-credentials")).toBeNull();
      for (const origin of [
        "https://evil.example",
        "https://app.example.com.evil.example",
        "null",
        "http://app.example.com",
      ]) {
        const other = await api.get("/servers", { origin });
        expect(other.headers.get("access-control-allow-origin"), origin).toBeNull();
      }
      const pre = await preflight(cors.url, "https://app.example.com");
      expect(pre.status).toBe(204);
      expect(pre.headers.get("access-control-allow-methods")).toBe("GET,POST,PATCH,DELETE");
      expect(pre.headers.get("access-control-allow-headers")).toContain("Authorization");
      const denied = await preflight(cors.url, "https://evil.example");
      expect(denied.headers.get("access-control-allow-origin")).toBeNull();
    });
  });
});

describe("errors reveal nothing", () => {
  it("a defect answers a bare 500 (no stack, message or SQL); the log has it under the request id", async () => {
    const dying = () => Effect.die(new Error('relation "secret_table" at SELECT password FROM users; stack here'));
    const broken = await startTestService({
      brokenStorage: Layer.succeed(Storage, { transaction: dying, read: dying } as unknown as typeof Storage.Service),
    });
    try {
      const res = await broken.client(await broken.token("defect")).get("/servers");
      const body = expectProblem(res, 500, "INTERNAL");
      expect(Object.keys(res.body).sort()).toEqual(["code", "detail", "requestId", "status", "title", "type"]);
      expect(res.text).not.toMatch(/secret_table|SELECT|password|stack|at .*\.js/);
      expect(body.detail).toContain("request id");
      expect(JSON.stringify(broken.logs)).toContain(res.body.requestId);
    } finally {
      await broken.close();
    }
  });

  it("malformed JSON is refused without echoing the body", async () => {
    const res = await world.alice.api.post("/servers", '{"server": {"name": "<script>secretive</script>",');
    expectProblem(res, 400, "INVALID_ARGUMENT");
    expect(res.text).not.toContain("secretive");
  });

  it("TRACE is refused and echoes nothing (no cross-site tracing of the Authorization header)", async () => {
    const { port } = new URL(world.svc.url);
    const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = httpRequest(
        {
          host: "127.0.0.1",
          port,
          method: "TRACE",
          path: "/servers",
          headers: { authorization: `Bearer ${world.alice.token}` },
        },
        (res) => {
          let body = "";
          res.on("data", (c: Buffer) => {
            body += c.toString();
          });
          res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
        },
      );
      req.on("error", reject);
      req.end();
    });
    expect(answer.status).toBe(405);
    expect(answer.body).not.toContain(world.alice.token);
  });
});

describe("configuration errors name the setting, never its value", () => {
  it("bad keys and secrets are reported without repeating them", async () => {
    const secretish = "not-base64-but-a-secret-value-0123456789";
    const provider = ConfigProvider.fromMap(
      new Map([
        ["ENCRYPTION_KEY", secretish],
        ["ENCRYPTION_KEYS_OLD", `${secretish}2,${Buffer.alloc(32, 1).toString("base64")}`],
        ["AUTH_INTROSPECTION_URL", "https://auth.example.com/introspect"],
        ["AUTH_INTROSPECTION_CLIENT_SECRET", `${secretish}3`],
        ["CORS_ORIGINS", "*"],
        ["REDIS_URL", "http://not-redis"],
      ]),
    );
    const outcome = await Effect.runPromise(Effect.either(Effect.withConfigProvider(appConfig, provider)));
    expect(Either.isLeft(outcome)).toBe(true);
    const message = String(Either.isLeft(outcome) ? outcome.left : "");
    for (const name of ["ENCRYPTION_KEY", "ENCRYPTION_KEYS_OLD", "CORS_ORIGINS", "REDIS_URL"])
      expect(message).toContain(name);
    expect(message).not.toContain(secretish);
  });
});
