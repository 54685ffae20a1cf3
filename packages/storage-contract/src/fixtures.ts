import type {
  GitConnectionRow,
  PromptRow,
  ProviderRow,
  ResourceRow,
  ServerRow,
  ServerTokenRow,
  ToolRow,
  VariableRow,
} from "@mcpsm/domain/storage";

// Row factories. Every field is filled, nested values included, so a round trip exercises the whole row.
// Row `n` is created at `at(n)`, so rows made in number order are also in creation order.

export const TENANT_A = "tenant-a";
export const TENANT_B = "tenant-b";
export const TENANT_C = "tenant-c";

/** An id no record has (the domain's format: 11 letters or digits). */
export const MISSING_ID = "missing0000";

/** A fixed instant `seconds` after 2024-01-01T00:00:00Z. */
export const at = (seconds: number): Date => new Date(Date.UTC(2024, 0, 1, 0, 0, seconds));

/** An 11-character id of a readable prefix and a number, e.g. `prov0000001`. */
export const id = (prefix: string, n: number): string => `${prefix}${String(n).padStart(11 - prefix.length, "0")}`;

export const providerId = (n: number) => id("prov", n);
export const toolId = (n: number) => id("tool", n);
export const promptId = (n: number) => id("prmt", n);
export const resourceId = (n: number) => id("rsrc", n);
export const variableId = (n: number) => id("vari", n);
export const serverId = (n: number) => id("serv", n);
export const serverTokenId = (n: number) => id("tokn", n);

/** Provider `n` of tenant A, INTERNAL, with an OAuth 2.0 configuration. */
export const provider = (n: number, override: Partial<ProviderRow> = {}): ProviderRow => ({
  id: providerId(n),
  tenant: TENANT_A,
  createdAt: at(n),
  updatedAt: at(n),
  version: 1,
  apiType: "REST",
  visibilityType: "INTERNAL",
  baseURL: `https://api${n}.example.com/v1`,
  documentURL: `https://docs.example.com/${n}`,
  iconURL: `https://docs.example.com/${n}/icon.png`,
  secretPrefix: `API${n}_EXAMPLE_COM`,
  name: `provider-${n}`,
  description: `Provider number ${n}`,
  oauth2Config: {
    clientID: `client-${n}`,
    clientSecretCipher: `v1:key1:cipher-${n}`,
    authURL: `https://auth.example.com/${n}/authorize`,
    tokenURL: `https://auth.example.com/${n}/token`,
  },
  ...override,
});

/** Tool `n` of a provider, with JSON schemas, a header and scopes. */
export const tool = (n: number, owner: string, override: Partial<ToolRow> = {}): ToolRow => ({
  id: toolId(n),
  providerId: owner,
  createdAt: at(n),
  updatedAt: at(n),
  method: "GET",
  path: "/items/{itemId}",
  name: `tool_${n}`,
  title: `Tool ${n}`,
  description: `Reads item ${n}`,
  pathArgsJSONSchema: { type: "object", properties: { itemId: { type: "string" } }, required: ["itemId"] },
  queryArgsJSONSchema: null,
  reqBodyJSONSchema: { type: "object", properties: { tags: { type: "array", items: { type: "string" } } } },
  reqContentType: "application/x-www-form-urlencoded",
  reqBodyEncoding: { tags: { style: "deepObject", explode: true } },
  respBodyJSONSchema: { type: "object", properties: { id: { type: "string" } } },
  outputSchemaMode: "EXACT",
  responseFilter: { language: "jmespath", expression: "items[*].{id: id}" },
  // A variable reference, stored as written.
  // biome-ignore lint/suspicious/noTemplateCurlyInString: the domain's ${NAME} syntax, not a template
  headers: [{ key: "X-Api-Key", value: "${API_KEY}" }],
  oauth2Scopes: ["items:read", "items:write"],
  imported: false,
  operationPath: "",
  longRunning: false,
  ...override,
});

/** Prompt `n` of a provider, with an argument and a message. */
export const prompt = (n: number, owner: string, override: Partial<PromptRow> = {}): PromptRow => ({
  id: promptId(n),
  providerId: owner,
  createdAt: at(n),
  updatedAt: at(n),
  name: `prompt_${n}`,
  description: `Prompt number ${n}`,
  arguments: [{ name: "topic", description: "What to write about", required: true }],
  messages: [{ role: "user", content: { type: "text", text: `Write about {{topic}} (${n})` } }],
  ...override,
});

/** Resource `n` of a provider, with annotations. */
export const resource = (n: number, owner: string, override: Partial<ResourceRow> = {}): ResourceRow => ({
  id: resourceId(n),
  providerId: owner,
  createdAt: at(n),
  updatedAt: at(n),
  name: `resource-${n}`,
  description: `Resource number ${n}`,
  uri: `https://files.example.com/${n}.txt`,
  mimeType: "text/plain",
  size: 1024 * n,
  annotations: { audience: ["user", "assistant"], priority: 0.5, lastModified: "2024-01-01T00:00:00Z" },
  ...override,
});

/** Variable `n` of tenant A. */
export const variable = (n: number, override: Partial<VariableRow> = {}): VariableRow => ({
  id: variableId(n),
  tenant: TENANT_A,
  createdAt: at(n),
  updatedAt: at(n),
  type: "ENV",
  name: `VAR_${n}`,
  value: `value-${n}`,
  perCaller: false,
  ...override,
});

/** Server `n` of tenant A, linked to nothing. */
export const server = (n: number, override: Partial<ServerRow> = {}): ServerRow => ({
  id: serverId(n),
  tenant: TENANT_A,
  createdAt: at(n),
  updatedAt: at(n),
  version: 1,
  name: `server-${n}`,
  description: `Server number ${n}`,
  requestHeadersProxyEnabled: true,
  dynamicToolDiscoveryEnabled: false,
  maxResultTokens: 25000,
  providers: [],
  resourceIds: [],
  promptIds: [],
  gitConnectionId: null,
  gitRepoFullName: null,
  approvalPolicy: "NONE",
  toolSettings: [],
  ...override,
});

/** Git connection `n` of tenant A. */
export const gitConnection = (n: number, override: Partial<GitConnectionRow> = {}): GitConnectionRow => ({
  id: id("gitc", n),
  tenant: TENANT_A,
  createdAt: at(n),
  updatedAt: at(n),
  name: `git-${n}`,
  kind: "GITHUB",
  baseURL: "https://github.com",
  username: "",
  tokenCipher: `v1.k.git-token-${n}`,
  ...override,
});

/** The value hash of token `n` (64 hex digits, like a SHA-256). */
export const tokenHash = (n: number): string => n.toString(16).padStart(64, "0");

/** Token `n` of a server of tenant A. */
export const serverToken = (n: number, owner: string, override: Partial<ServerTokenRow> = {}): ServerTokenRow => ({
  id: serverTokenId(n),
  serverId: owner,
  tenant: TENANT_A,
  createdAt: at(n),
  expiresAt: at(86_400 + n),
  name: `token-${n}`,
  valueHash: tokenHash(n),
  ...override,
});

/**
 * Changes `value` in place, down to nested arrays, objects and Dates: a store that kept a reference to it
 * (or handed out a reference to its own row) shows the change.
 */
export const scribble = (value: unknown): void => {
  if (value instanceof Date) value.setTime(0);
  else if (Array.isArray(value)) {
    for (const item of value) scribble(item);
    value.push("scribbled");
  } else if (typeof value === "object" && value !== null) {
    const record = value as Record<string, unknown>;
    for (const [key, field] of Object.entries(record)) {
      if (typeof field === "string") record[key] = `${field}!`;
      else if (typeof field === "number") record[key] = field + 1;
      else if (typeof field === "boolean") record[key] = !field;
      else scribble(field);
    }
  }
};
