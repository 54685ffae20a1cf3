import { Client as McpClient, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, expect } from "vitest";
import { type Client, startTestService, type Tenant, type TestService } from "./harness.js";
import { expectStatus } from "./problems.js";
import {
  createPrompt,
  createProvider,
  createResource,
  createServer as createServerRecord,
  createTool,
  createVariable,
  uniq,
} from "./records.js";
import { type Loopback, listenOnLoopback } from "./loopback.js";

// The world of the server export and import tests (docs/api-rules.md §16): a recording upstream, the service,
// a source server built over both, and readers of what a tenant holds.

// biome-ignore lint/suspicious/noExplicitAny: documents and answers are plain JSON
export type Json = any;

export interface Recorded {
  readonly method: string;
  readonly url: string;
  readonly apiKey: string | undefined;
  readonly contentType: string | undefined;
  readonly body: string;
}

export let svc: TestService;
let upstream: Loopback;
export let upstreamBase: string;
/** The requests the recording upstream received, in order. */
export const recorded: Array<Recorded> = [];

/** Starts the recording upstream and the service before the file's tests, and stops them after. */
export const useExportImportWorld = () => {
  beforeAll(async () => {
    upstream = await listenOnLoopback((req, res) => {
      const chunks: Array<Buffer> = [];
      req.on("data", (chunk: Buffer) => chunks.push(chunk));
      req.on("end", () => {
        recorded.push({
          method: req.method ?? "",
          url: req.url ?? "",
          apiKey: req.headers["x-api-key"] as string | undefined,
          contentType: req.headers["content-type"],
          body: Buffer.concat(chunks).toString("utf8"),
        });
        res.writeHead(200, { "Content-Type": "application/json" });
        res.end(JSON.stringify({ ok: true, method: req.method, url: req.url }));
      });
    });
    // `localhost` (not 127.0.0.1) so the provider's secretPrefix, LOCALHOST, can name a variable.
    upstreamBase = `http://localhost:${upstream.port}/v1`;
    svc = await startTestService({ mcp: { upstreamAllowedNetworks: ["127.0.0.0/8", "::1/128"] } });
  });

  afterAll(async () => {
    await svc?.close();
    await upstream?.close();
  });
};

/** Every key of a JSON value, at any depth, but inside a tool's JSON Schemas (whose properties are the tool's). */
export const keysOf = (node: unknown): Array<string> => {
  if (Array.isArray(node)) return node.flatMap(keysOf);
  if (typeof node === "object" && node !== null)
    return Object.entries(node).flatMap(([key, value]) => [key, ...(key.endsWith("JSONSchema") ? [] : keysOf(value))]);
  return [];
};

/** What a tenant holds: its servers and providers as listed, and how many audit events it has. */
export const holdings = async (api: Client) => {
  const servers = await api.get("/servers");
  const providers = await api.get("/providers?limit=1000");
  const audit = await api.get("/audit-events?limit=1");
  expectStatus(servers, 200);
  expectStatus(providers, 200);
  return {
    servers: servers.body.servers,
    providers: providers.body.providers.map((p: Json) => ({ ...p, tools: p.tools })),
    auditEvents: audit.body.matchCount,
  };
};

export const mcp = async (serverId: string, token: string) => {
  const client = new McpClient({ name: "export-test", version: "1" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${svc.url}/mcp/${serverId}`), {
      requestInit: { headers: { Authorization: `Bearer ${token}` } },
    }),
  );
  return client;
};

/** A server of `owner` over the local upstream: two providers, chosen tools, a prompt, a resource, a SECRET. */
export const buildSource = async (owner: Tenant, secret: string) => {
  const local = await createProvider(owner.api, {
    name: `Local ${uniq()}`,
    baseURL: upstreamBase,
    description: "the recording upstream",
  });
  expect(local.secretPrefix).toBe("LOCALHOST");
  const getThing = await createTool(owner.api, local.id, {
    name: "getThing",
    title: "Get a thing",
    method: "GET",
    path: "/things/{id}",
    pathArgsJSONSchema: { type: "object", properties: { id: { type: "string" } }, required: ["id"] },
    queryArgsJSONSchema: { type: "object", properties: { verbose: { type: "boolean" } } },
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a variable reference, not a template
    headers: [{ key: "X-Api-Key", value: "${LOCALHOST_KEY}" }],
  });
  const createThing = await createTool(owner.api, local.id, {
    name: "createThing",
    method: "POST",
    path: "/things",
    reqBodyJSONSchema: { type: "object", properties: { label: { type: "string" } }, required: ["label"] },
    reqContentType: "application/x-www-form-urlencoded",
    reqBodyEncoding: { label: { style: "form", explode: true } },
    respBodyJSONSchema: { type: "object", properties: { ok: { type: "boolean" } }, required: ["ok"] },
    outputSchemaMode: "EXACT",
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a variable reference, not a template
    headers: [{ key: "X-Api-Key", value: "${LOCALHOST_KEY}" }],
  });
  await createTool(owner.api, local.id, { name: "notChosen", method: "DELETE", path: "/things" });
  const prompt = await createPrompt(owner.api, local.id);
  const resource = await createResource(owner.api, local.id);
  const oauth = await createProvider(owner.api, {
    name: `OAuth ${uniq()}`,
    baseURL: "https://api.oauth.example/v2",
    oauth2Config: {
      clientID: "export-client",
      clientSecret: secret,
      tokenURL: "https://auth.oauth.example/token",
    },
  });
  const listRepos = await createTool(owner.api, oauth.id, {
    name: "listRepos",
    method: "GET",
    path: "/repos",
    oauth2Scopes: ["repo:read"],
  });
  await createVariable(owner.api, { type: "SECRET", name: "LOCALHOST_KEY", value: `key-${secret}` });
  const server = await createServerRecord(owner.api, {
    name: `Things ${uniq()}`,
    description: "Thing tools",
    requestHeadersProxyEnabled: true,
    providers: [
      { id: local.id, tools: [{ id: createThing.id }, { id: getThing.id }] },
      { id: oauth.id, tools: [{ id: listRepos.id }] },
    ],
    prompts: [{ id: prompt.id }],
    resources: [{ id: resource.id }],
  });
  return { local, oauth, server, prompt, resource };
};

export const importDocument = (api: Client, document: unknown, query = "") =>
  api.request("POST", `/servers/import${query}`, { body: document });
