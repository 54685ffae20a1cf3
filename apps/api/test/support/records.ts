import { randomBytes } from "node:crypto";
import { expect } from "vitest";
import type { Client, Res } from "./harness.js";

// Write bodies with unique names, and helpers that create records through the API and insist on 201.

let sequence = 0;
/** A short token unique within the process (lower-case letters and digits). */
export const uniq = (): string => `${(sequence++).toString(36)}${randomBytes(4).toString("hex")}`;

/** A valid id that no record has. */
export const unknownId = (): string => {
  const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
  return Array.from(randomBytes(11), (b) => alphabet[b % 62]).join("");
};

// biome-ignore lint/suspicious/noExplicitAny: records are plain JSON
type Json = Record<string, any>;

export const providerWrite = (overrides: Json = {}): Json => ({
  name: `Provider ${uniq()}`,
  baseURL: "https://api.example.com/v1",
  ...overrides,
});

/** A tool name: camelCase, at most 20 characters. */
export const toolName = (): string => `tool${uniq()}`.slice(0, 20);

export const toolWrite = (overrides: Json = {}): Json => ({
  name: toolName(),
  method: "GET",
  path: "/items",
  ...overrides,
});

export const promptWrite = (overrides: Json = {}): Json => ({
  name: `Prompt ${uniq()}`,
  description: "summarise an issue",
  arguments: [{ name: "issue", description: "the issue number", required: true }],
  messages: [{ role: "user", content: { type: "text", text: "Summarise issue {{issue}}" } }],
  ...overrides,
});

export const resourceWrite = (overrides: Json = {}): Json => ({
  name: `Resource ${uniq()}`,
  uri: "https://api.example.com/docs/readme.md",
  mimeType: "text/markdown",
  size: 1234,
  annotations: { audience: ["user"], priority: 0.5 },
  ...overrides,
});

export const serverWrite = (overrides: Json = {}): Json => ({ name: `Server ${uniq()}`, ...overrides });

export const variableWrite = (overrides: Json = {}): Json => ({
  type: "ENV",
  name: `VAR_${uniq().toUpperCase()}`,
  value: "some value",
  ...overrides,
});

/** A GENERIC git connection to a host nobody pushes to in these tests (the harness plants its token). */
export const gitConnectionWrite = (overrides: Json = {}): Json => ({
  name: `Git ${uniq()}`,
  kind: "GENERIC",
  baseURL: "https://git.example.com",
  username: "bot",
  token: `glpat-${randomBytes(16).toString("hex")}`,
  ...overrides,
});

const created = (res: Res, envelope: string): Json => {
  expect(res.status, `create ${envelope}: ${res.status} ${res.text.slice(0, 600)}`).toBe(201);
  return res.body[envelope];
};

export const createProvider = async (api: Client, overrides: Json = {}): Promise<Json> =>
  created(await api.post("/providers", { provider: providerWrite(overrides) }), "provider");

export const createTool = async (api: Client, providerId: string, overrides: Json = {}): Promise<Json> =>
  created(await api.post(`/providers/${providerId}/tools`, { tool: toolWrite(overrides) }), "tool");

export const createPrompt = async (api: Client, providerId: string, overrides: Json = {}): Promise<Json> =>
  created(await api.post(`/providers/${providerId}/prompts`, { prompt: promptWrite(overrides) }), "prompt");

export const createResource = async (api: Client, providerId: string, overrides: Json = {}): Promise<Json> =>
  created(await api.post(`/providers/${providerId}/resources`, { resource: resourceWrite(overrides) }), "resource");

export const createServer = async (api: Client, overrides: Json = {}): Promise<Json> =>
  created(await api.post("/servers", { server: serverWrite(overrides) }), "server");

export const createVariable = async (api: Client, overrides: Json = {}): Promise<Json> =>
  created(await api.post("/variables", { variable: variableWrite(overrides) }), "variable");

export const createGitConnection = async (api: Client, overrides: Json = {}): Promise<Json> =>
  created(await api.post("/git-connections", { gitConnection: gitConnectionWrite(overrides) }), "gitConnection");

export const createToken = async (api: Client, serverId: string, overrides: Json = {}): Promise<Json> =>
  created(await api.post(`/servers/${serverId}/tokens`, { token: { name: `token ${uniq()}`, ...overrides } }), "token");

/** A provider with two tools, a prompt and a resource. */
export const createProviderFamily = async (api: Client, overrides: Json = {}) => {
  const provider = await createProvider(api, overrides);
  const tools: [Json, Json] = [await createTool(api, provider.id), await createTool(api, provider.id)];
  const prompt = await createPrompt(api, provider.id);
  const resource = await createResource(api, provider.id);
  return { provider, tools, prompt, resource };
};

/** The current record at `path` under `envelope` (asserting 200). */
export const fetchRecord = async (api: Client, path: string, envelope: string): Promise<Json> => {
  const res = await api.get(path);
  expect(res.status, `GET ${path}: ${res.text.slice(0, 600)}`).toBe(200);
  return res.body[envelope];
};

/**
 * `records` ordered by id, for comparing lists whose order docs/api-rules.md leaves open (records created in the
 * same millisecond have no order a client can predict).
 */
export const byId = <T extends Json>(records: ReadonlyArray<T>): Array<T> =>
  [...records].sort((a, b) => (String(a.id) < String(b.id) ? -1 : String(a.id) > String(b.id) ? 1 : 0));
