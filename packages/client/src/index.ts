/**
 * @mcpsm/client: a typed client of the MCP Server Management Service. The types are generated from the
 * service's OpenAPI document (docs/openapi.json) by openapi-typescript (`./run openapi` regenerates both);
 * requests go through openapi-fetch, so paths, parameters, bodies and answers are checked by the compiler.
 *
 *   const api = createMcpsmClient({ baseUrl: "http://127.0.0.1:8080", token });
 *   const { data, error } = await api.POST("/variables", { body: { variable: { type: "ENV", name: "X", value: "1" } } });
 */
import createClient, { type Client, type ClientOptions } from "openapi-fetch";
import type { components, operations, paths } from "./openapi-types.js";

export type { components, operations, paths };

export interface McpsmClientOptions {
  /** The service's base URL, e.g. `http://127.0.0.1:8080`. */
  readonly baseUrl: string;
  /** A bearer access token, or a function that returns the current one (called per request). */
  readonly token?: string | (() => string | Promise<string>);
  /** A `fetch` to use instead of the global one (tests, proxies, instrumentation). */
  readonly fetch?: ClientOptions["fetch"];
  /** Headers sent with every request. */
  readonly headers?: Record<string, string>;
}

/** The client type: `GET`, `POST`, `PATCH`, `DELETE` … over the service's paths. */
export type McpsmClient = Client<paths>;

/** A typed client bound to one service and (optionally) one access token. */
export const createMcpsmClient = (options: McpsmClientOptions): McpsmClient => {
  const client = createClient<paths>({
    baseUrl: options.baseUrl.replace(/\/+$/, ""),
    ...(options.fetch === undefined ? {} : { fetch: options.fetch }),
    ...(options.headers === undefined ? {} : { headers: options.headers }),
  });
  const { token } = options;
  if (token !== undefined)
    client.use({
      onRequest: async ({ request }) => {
        request.headers.set("Authorization", `Bearer ${typeof token === "string" ? token : await token()}`);
        return request;
      },
    });
  return client;
};

type Schemas = components["schemas"];
/** The records of the API, as its answers carry them. */
export type Server = Schemas["Server"];
export type Provider = Schemas["Provider"];
export type ProviderTool = Schemas["ProviderTool"];
export type ProviderPrompt = Schemas["ProviderPrompt"];
export type ProviderResource = Schemas["ProviderResource"];
export type Variable = Schemas["Variable"];
export type ServerToken = Schemas["ServerToken"];
/** The write shapes. */
export type ServerCreate = Schemas["ServerCreate"];
export type ServerPatch = Schemas["ServerPatch"];
export type ProviderCreate = Schemas["ProviderCreate"];
export type ProviderPatch = Schemas["ProviderPatch"];
export type ToolCreate = Schemas["ToolCreate"];
export type VariableCreate = Schemas["VariableCreate"];
/** An RFC 9457 problem, as every error answer carries it. */
export type Problem = Schemas["Problem"];
