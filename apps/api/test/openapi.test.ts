import { readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createMcpsmClient } from "@mcpsm/client";
import { Validator } from "@seriousme/openapi-schema-validator";
import pino from "pino";
import { describe, expect, it } from "vitest";
import { loadAppConfig } from "../src/config/app-config.js";
import { localConfig } from "../src/config/local-config.js";
import { DOCS_CSP } from "../src/http/api-docs.js";
import { startService } from "../src/service.js";
import { serviceForFile } from "./support/file-service.js";
import { conformanceProblems, conformingFetch } from "./support/openapi-conformance.js";
import { expectProblem, expectStatus } from "./support/problems.js";

// GET /openapi.json and GET /docs as served, the checker that holds every answer of the suite to the
// document, and the typed client (@mcpsm/client) generated from it.

const committed = JSON.parse(readFileSync(join(import.meta.dirname, "..", "..", "..", "docs", "openapi.json"), "utf8"));

const world = serviceForFile({ alice: "openapi" });

describe("GET /openapi.json", () => {
  it("serves the committed document without a token, and it validates", async () => {
    const res = await world.svc.client().get("/openapi.json");
    expectStatus(res, 200);
    expect(res.headers.get("content-type")).toMatch(/^application\/json/);
    expect(res.body).toEqual(committed);
    const result = await new Validator().validate(res.body);
    expect(result.errors ?? []).toEqual([]);
  });

  it("names the configured authorization server (AUTH_URL)", async () => {
    const previous = process.env.AUTH_URL;
    process.env.AUTH_URL = "https://login.example.org/tenant-a";
    const loaded = await loadAppConfig().finally(() => {
      if (previous === undefined) delete process.env.AUTH_URL;
      else process.env.AUTH_URL = previous;
    });
    expect(loaded._tag).toBe("Right");
    const authUrl = loaded._tag === "Right" ? loaded.right.authUrl : undefined;
    expect(authUrl).toBe("https://login.example.org/tenant-a");
    const dataDir = await mkdtemp(join(tmpdir(), "mcpsm-openapi-"));
    const service = await startService(localConfig(dataDir, { authUrl }), { logger: pino({ level: "silent" }) });
    try {
      const doc = (await (await conformingFetch(`${service.url}/openapi.json`)).json()) as {
        components: { securitySchemes: { oauth2: { flows: { authorizationCode: unknown } } } };
      };
      expect(doc.components.securitySchemes.oauth2.flows.authorizationCode).toMatchObject({
        authorizationUrl: "https://login.example.org/tenant-a/oauth2/auth",
        tokenUrl: "https://login.example.org/tenant-a/oauth2/token",
      });
    } finally {
      await service.close();
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});

describe("GET /docs", () => {
  it("serves the API reference page under a strict Content-Security-Policy, with its files from this service", async () => {
    const page = await world.svc.client().get("/docs");
    expectStatus(page, 200);
    expect(page.headers.get("content-type")).toMatch(/^text\/html/);
    expect(page.headers.get("content-security-policy")).toBe(DOCS_CSP);
    expect(DOCS_CSP).toContain("script-src 'self'");
    expect(DOCS_CSP).not.toContain("unsafe-inline");
    expect(DOCS_CSP).not.toContain("unsafe-eval");
    // No inline script or style, and nothing from another origin.
    expect(page.text).not.toMatch(/<script>|<style|style=|https?:\/\//);
    const sources = Array.from(page.text.matchAll(/(?:src|href)="([^"]+)"/g), (m) => m[1]!);
    expect(sources.length).toBeGreaterThanOrEqual(3);
    for (const source of sources) {
      expect(source.startsWith("/docs/"), source).toBe(true);
      const asset = await world.svc.client().get(source);
      expectStatus(asset, 200);
    }
    const init = await world.svc.client().get("/docs/init.js");
    expect(init.text).toContain('url: "/openapi.json"');
    expect(init.text).toContain("validatorUrl: null");
  });

  it("an unknown file under /docs/ answers 404 in the problem shape", async () => {
    expectProblem(await world.svc.client().get("/docs/nothing.js"), 404, "NOT_FOUND");
    expectProblem(await world.svc.client().get("/docs/swagger-ui-bundle.js.map"), 404, "NOT_FOUND");
  });
});

describe("the conformance checker (every answer of the suite passes through it)", () => {
  const json = (body: unknown, type = "application/json", extra: Record<string, string> = {}) => ({
    headers: new Headers({ "content-type": type, "x-request-id": "r1", ...extra }),
    text: JSON.stringify(body),
  });
  const problem = (status: number, code: string, title: string, extra: Record<string, unknown> = {}) => ({
    type: "about:blank",
    title,
    status,
    code,
    detail: "d",
    requestId: "r1",
    ...extra,
  });
  const provider = {
    id: "Ab3dE5gH9jK",
    createdAt: "2026-01-01T00:00:00.000Z",
    updatedAt: "2026-01-01T00:00:00.000Z",
    version: 1,
    apiType: "REST",
    visibilityType: "INTERNAL",
    baseURL: "https://api.example.com",
    documentURL: "",
    iconURL: "",
    secretPrefix: "API_EXAMPLE_COM",
    name: "P",
    description: "",
    tools: [],
  };

  it("accepts answers the document describes", () => {
    expect(conformanceProblems("GET", "/servers", { status: 200, ...json({ servers: [] }) })).toEqual([]);
    expect(
      conformanceProblems("GET", "/providers/Ab3dE5gH9jK", {
        status: 200,
        ...json({ provider }, "application/json", { etag: 'W/"1"' }),
      }),
    ).toEqual([]);
    expect(
      conformanceProblems("GET", "/nope", {
        status: 404,
        ...json(problem(404, "NOT_FOUND", "Not Found"), "application/problem+json"),
      }),
    ).toEqual([]);
    expect(
      conformanceProblems("PUT", "/servers", {
        status: 405,
        ...json(problem(405, "METHOD_NOT_ALLOWED", "Method Not Allowed"), "application/problem+json", {
          allow: "HEAD, GET, POST",
        }),
      }),
    ).toEqual([]);
    expect(
      conformanceProblems("DELETE", "/variables/Ab3dE5gH9jK", { status: 204, headers: new Headers(), text: "" }),
    ).toEqual([]);
  });

  it("refuses answers the document does not describe", () => {
    const refused = [
      // A status the operation does not declare.
      conformanceProblems("GET", "/servers", { status: 418, ...json({}) }),
      conformanceProblems("GET", "/servers", {
        status: 404,
        ...json(problem(404, "NOT_FOUND", "Not Found"), "application/problem+json"),
      }),
      // A body that misses its envelope, or carries a field the record does not have (a leaked secret).
      conformanceProblems("GET", "/servers", { status: 200, ...json({ items: [] }) }),
      conformanceProblems("GET", "/providers/Ab3dE5gH9jK", {
        status: 200,
        ...json(
          { provider: { ...provider, oauth2Config: { clientID: "c", clientSecret: "s", authURL: "", tokenURL: "" } } },
          "application/json",
          { etag: 'W/"1"' },
        ),
      }),
      // A required header missing, or malformed.
      conformanceProblems("POST", "/variables", {
        status: 201,
        ...json({
          variable: {
            id: "Ab3dE5gH9jK",
            createdAt: "2026-01-01T00:00:00.000Z",
            updatedAt: "2026-01-01T00:00:00.000Z",
            type: "ENV",
            value: "",
            name: "X",
          },
        }),
      }),
      conformanceProblems("GET", "/providers/Ab3dE5gH9jK", {
        status: 200,
        ...json({ provider }, "application/json", { etag: '"one"' }),
      }),
      // The wrong media type, a problem with the wrong code, a body on a 204.
      conformanceProblems("GET", "/servers", { status: 200, ...json({ servers: [] }, "text/plain") }),
      conformanceProblems("GET", "/servers/Ab3dE5gH9jK", {
        status: 404,
        ...json(problem(404, "ALREADY_EXISTS", "Not Found"), "application/problem+json"),
      }),
      conformanceProblems("DELETE", "/variables/Ab3dE5gH9jK", { status: 204, headers: new Headers(), text: "{}" }),
      // Unknown paths must be 404, and a 405 must allow exactly the documented methods.
      conformanceProblems("GET", "/nope", { status: 200, ...json({}) }),
      conformanceProblems("PUT", "/servers", {
        status: 405,
        ...json(problem(405, "METHOD_NOT_ALLOWED", "Method Not Allowed"), "application/problem+json", { allow: "GET" }),
      }),
      conformanceProblems("PUT", "/servers", { status: 200, ...json({ servers: [] }) }),
    ];
    for (const [i, problems] of refused.entries()) expect(problems.length, `case ${i}`).toBeGreaterThan(0);
  });
});

describe("the typed client (@mcpsm/client)", () => {
  const api = () => createMcpsmClient({ baseUrl: world.svc.url, token: world.alice.token, fetch: conformingFetch });

  it("creates and reads records with compiler-checked paths and bodies", async () => {
    const client = api();
    const provider = await client.POST("/providers", {
      body: { provider: { name: "GitHub", baseURL: "https://api.github.com", visibilityType: "INTERNAL" } },
    });
    expect(provider.response.status).toBe(201);
    const providerId = provider.data!.provider.id;
    expect(provider.data!.provider.secretPrefix).toBe("API_GITHUB_COM");
    const tool = await client.POST("/providers/{id}/tools", {
      params: { path: { id: providerId } },
      body: {
        tool: {
          name: "getRepo",
          method: "GET",
          path: "/repos/{owner}/{repo}",
          pathArgsJSONSchema: {
            type: "object",
            properties: { owner: { type: "string" }, repo: { type: "string" } },
            required: ["owner", "repo"],
          },
          // biome-ignore lint/suspicious/noTemplateCurlyInString: a variable reference, resolved at MCP call time
          headers: [{ key: "Authorization", value: "Bearer ${API_GITHUB_COM_TOKEN}" }],
        },
      },
    });
    expect(tool.response.status).toBe(201);
    const server = await client.POST("/servers", {
      body: { server: { name: "Code helper", instructions: "Use the GitHub tools", providers: [{ id: providerId }] } },
    });
    expect(server.data!.server.providers[0]!.tools.map((t) => t.name)).toEqual(["getRepo"]);
    const token = await client.POST("/servers/{id}/tokens", {
      params: { path: { id: server.data!.server.id } },
      body: { token: { name: "laptop" } },
    });
    expect(token.data!.token.value).toMatch(/^mcps_/);
    const got = await client.GET("/servers/{id}", { params: { path: { id: server.data!.server.id } } });
    expect(got.response.headers.get("etag")).toBe(`W/"${got.data!.server.version}"`);
  });

  it("pages through providers with the typed query parameters", async () => {
    const client = api();
    for (const n of [1, 2, 3])
      await client.POST("/providers", {
        body: { provider: { name: `Paged ${n}`, baseURL: `https://paged${n}.example.com` } },
      });
    const seen: Array<string> = [];
    let token: string | undefined;
    do {
      const page = await client.GET("/providers", {
        params: { query: { limit: 2, nameContains: "paged", ...(token === undefined ? {} : { token }) } },
      });
      expect(page.data!.matchCount).toBe(3);
      seen.push(...page.data!.providers.map((p) => p.name));
      token = page.data!.nextToken === "" ? undefined : page.data!.nextToken;
    } while (token !== undefined);
    expect(seen.sort()).toEqual(["Paged 1", "Paged 2", "Paged 3"]);
  });

  it("gives errors as typed problems", async () => {
    const client = api();
    const missing = await client.GET("/variables/{id}", { params: { path: { id: "Ab3dE5gH9jK" } } });
    expect(missing.response.status).toBe(404);
    expect(missing.error).toMatchObject({ status: 404, code: "NOT_FOUND" });
    const invalid = await client.POST("/variables", { body: { variable: { type: "ENV", name: "1bad", value: "x" } } });
    expect(invalid.error).toMatchObject({ status: 400, code: "INVALID_ARGUMENT" });
    // The error type is a union by status; a 400 is the one that lists `errors`.
    if (invalid.error?.status !== 400) throw new Error("expected a 400");
    expect(invalid.error.errors.map((e) => e.path)).toEqual(["variable.name"]);
    const anonymous = createMcpsmClient({ baseUrl: world.svc.url, fetch: conformingFetch });
    const denied = await anonymous.GET("/servers");
    expect(denied.error).toMatchObject({ status: 401, code: "UNAUTHENTICATED" });
  });
});
