import { Schema } from "effect";
import { PromptArgument, PromptMessage } from "../prompt/prompt-schema.js";
import { ApiType, VisibilityType } from "../provider/provider-schema.js";
import { ApprovalPolicy, ServerToolSettingsRow } from "../server/tool-settings-schema.js";
import { ResourceAnnotations } from "../resource/resource-schema.js";
import { ResponseFilter } from "../response-shaping/response-filter.js";
import { BodyEncoding, OutputSchemaMode } from "../tool/tool-body-fields.js";
import { HTTP_METHODS, ToolHeader } from "../tool/tool-schema.js";
import { JsonObject } from "../validation/text.js";
import { VariableType } from "../variable/variable-schema.js";

// The stored form of every record. Adapters persist exactly these fields; the domain maps them to the
// wire records. Secrets are stored only as ciphertext produced by the SecretCipher.

/** A stored provider. */
export const ProviderRow = Schema.Struct({
  id: Schema.String,
  tenant: Schema.String,
  createdAt: Schema.DateFromSelf,
  updatedAt: Schema.DateFromSelf,
  version: Schema.Number,
  apiType: ApiType,
  visibilityType: VisibilityType,
  baseURL: Schema.String,
  documentURL: Schema.String,
  iconURL: Schema.String,
  secretPrefix: Schema.String,
  name: Schema.String,
  description: Schema.String,
  oauth2Config: Schema.NullOr(
    Schema.Struct({
      clientID: Schema.String,
      /** Ciphertext of the client secret, or null when none was given. */
      clientSecretCipher: Schema.NullOr(Schema.String),
      authURL: Schema.String,
      tokenURL: Schema.String,
    }),
  ),
});
export type ProviderRow = typeof ProviderRow.Type;

/** A stored tool. A JSON Schema of null means "none". */
export const ToolRow = Schema.Struct({
  id: Schema.String,
  providerId: Schema.String,
  createdAt: Schema.DateFromSelf,
  updatedAt: Schema.DateFromSelf,
  method: Schema.Literal(...HTTP_METHODS),
  path: Schema.String,
  name: Schema.String,
  title: Schema.String,
  description: Schema.String,
  pathArgsJSONSchema: Schema.NullOr(JsonObject),
  queryArgsJSONSchema: Schema.NullOr(JsonObject),
  reqBodyJSONSchema: Schema.NullOr(JsonObject),
  /** The media type the body is sent as (`application/json` unless the tool says otherwise). */
  reqContentType: Schema.String,
  /** Per property of a form or multipart body: its OpenAPI encoding (style, explode, contentType). */
  reqBodyEncoding: BodyEncoding,
  /** The JSON Schema of the upstream's success answer, or null when unknown: the MCP tool's outputSchema. */
  respBodyJSONSchema: Schema.NullOr(JsonObject),
  /** LENIENT: the declared outputSchema accepts every answer; EXACT: the schema as written. */
  outputSchemaMode: OutputSchemaMode,
  /** Applied to the upstream's JSON answer before it reaches the caller (docs/api-rules.md §19); null: none. */
  responseFilter: Schema.NullOr(ResponseFilter),
  headers: Schema.Array(ToolHeader),
  oauth2Scopes: Schema.Array(Schema.String),
  /** True when an OpenAPI import made the tool: only such tools are changed or removed by a re-sync. */
  imported: Schema.Boolean,
  /**
   * For an imported tool, the operation's path exactly as the description writes it (with any fixed query or
   * fragment: `/?Action=DescribeRegions`, `/files/{id}#add`): with the method, what a re-sync matches it by.
   * "" for other tools (and for tools imported before this field: they match by `path`).
   */
  operationPath: Schema.String,
  /**
   * True when an OpenAPI import found the operation long-running (a `202` answer, or
   * `x-ms-long-running-operation`: docs/api-rules.md §22). Not a wire field: what a client is told is the
   * description's note; the flag keeps it as data for the service (and any later declaration).
   */
  longRunning: Schema.Boolean,
});
export type ToolRow = typeof ToolRow.Type;

/** A stored prompt. */
export const PromptRow = Schema.Struct({
  id: Schema.String,
  providerId: Schema.String,
  createdAt: Schema.DateFromSelf,
  updatedAt: Schema.DateFromSelf,
  name: Schema.String,
  description: Schema.String,
  arguments: Schema.Array(PromptArgument),
  messages: Schema.Array(PromptMessage),
});
export type PromptRow = typeof PromptRow.Type;

/** A stored resource. */
export const ResourceRow = Schema.Struct({
  id: Schema.String,
  providerId: Schema.String,
  createdAt: Schema.DateFromSelf,
  updatedAt: Schema.DateFromSelf,
  name: Schema.String,
  description: Schema.String,
  uri: Schema.String,
  mimeType: Schema.String,
  size: Schema.Number,
  annotations: ResourceAnnotations,
});
export type ResourceRow = typeof ResourceRow.Type;

/** A stored variable; `value` is ciphertext when `type` is SECRET. */
export const VariableRow = Schema.Struct({
  id: Schema.String,
  tenant: Schema.String,
  createdAt: Schema.DateFromSelf,
  updatedAt: Schema.DateFromSelf,
  type: VariableType,
  name: Schema.String,
  value: Schema.String,
  /** docs/api-rules.md §23: each caller may hold its own value (CallerValueRow); `value` is the default. */
  perCaller: Schema.Boolean,
});
export type VariableRow = typeof VariableRow.Type;

/** A provider chosen by a server, with the ids of its chosen tools in order. */
export const ServerProviderLink = Schema.Struct({
  providerId: Schema.String,
  toolIds: Schema.Array(Schema.String),
});
export type ServerProviderLink = typeof ServerProviderLink.Type;

/** A stored server with its associations, each list in the order the client gave. */
export const ServerRow = Schema.Struct({
  id: Schema.String,
  tenant: Schema.String,
  createdAt: Schema.DateFromSelf,
  updatedAt: Schema.DateFromSelf,
  version: Schema.Number,
  name: Schema.String,
  description: Schema.String,
  requestHeadersProxyEnabled: Schema.Boolean,
  dynamicToolDiscoveryEnabled: Schema.Boolean,
  /** The most o200k_base tokens one tool result holds (docs/api-rules.md §19). */
  maxResultTokens: Schema.Number,
  providers: Schema.Array(ServerProviderLink),
  resourceIds: Schema.Array(Schema.String),
  promptIds: Schema.Array(Schema.String),
  /** The git connection the server is pushed through (docs/api-rules.md §17); absent or null for none. */
  gitConnectionId: Schema.optional(Schema.NullOr(Schema.String)),
  /** The repository (`owner/repo`) it is pushed to; absent, null or "" for none. */
  gitRepoFullName: Schema.optional(Schema.NullOr(Schema.String)),
  /** Which calls wait for a person's approval (docs/api-rules.md §20); absent means NONE. */
  approvalPolicy: Schema.optional(ApprovalPolicy),
  /** The settings of chosen tools that have any (docs/api-rules.md §20), in no particular order; absent = none. */
  toolSettings: Schema.optional(Schema.Array(ServerToolSettingsRow)),
});
export type ServerRow = typeof ServerRow.Type;

/** A stored server token: only the SHA-256 of its value is kept. */
export const ServerTokenRow = Schema.Struct({
  id: Schema.String,
  serverId: Schema.String,
  tenant: Schema.String,
  createdAt: Schema.DateFromSelf,
  expiresAt: Schema.NullOr(Schema.DateFromSelf),
  name: Schema.String,
  valueHash: Schema.String,
});
export type ServerTokenRow = typeof ServerTokenRow.Type;

/** A server with everything its response needs, fetched together (one query on SQL adapters). */
export interface ServerGraph {
  readonly server: ServerRow;
  readonly providers: ReadonlyArray<ProviderRow>;
  /** The chosen tools of every provider of the server. */
  readonly tools: ReadonlyArray<ToolRow>;
  readonly resources: ReadonlyArray<ResourceRow>;
  readonly prompts: ReadonlyArray<PromptRow>;
  /** The kind of the server's git connection (its response's `gitProvider`); absent or null for none. */
  readonly gitProvider?: string | null | undefined;
}

/** A provider with all its tools. */
export interface ProviderWithTools {
  readonly provider: ProviderRow;
  readonly tools: ReadonlyArray<ToolRow>;
}

/** Providers and tools found by their ids (what a server write names), each list in no particular order. */
export interface ProvidersAndTools {
  readonly providers: ReadonlyArray<ProviderRow>;
  readonly tools: ReadonlyArray<ToolRow>;
  /**
   * Asked for with a tenant: that tenant's variables the found tools' headers name (`variablesReferencedBy`),
   * read in the same round trip, so a write's revision needs no read of its own under the quota lock.
   */
  readonly variables?: ReadonlyArray<VariableRow>;
}

/**
 * An upstream OAuth connection (docs/api-rules.md §13): the tokens one caller of the MCP endpoint got by
 * consenting to a provider with an `authURL`. `principal` names the caller within `tenant` (`oauth:<sub>` or
 * `server-token:<tokenId>`); the tokens are one ciphertext (JSON of the access and refresh token).
 */
export const UpstreamConnectionRow = Schema.Struct({
  id: Schema.String,
  /** The tenant of the server the caller called (its owner). */
  tenant: Schema.String,
  providerId: Schema.String,
  principal: Schema.String,
  /** The server token the caller used, so that revoking it deletes the connection; null for OAuth callers. */
  serverTokenId: Schema.NullOr(Schema.String),
  scopes: Schema.Array(Schema.String),
  tokensCipher: Schema.String,
  refreshable: Schema.Boolean,
  /** When the access token expires. */
  expiresAt: Schema.DateFromSelf,
  createdAt: Schema.DateFromSelf,
  updatedAt: Schema.DateFromSelf,
});
export type UpstreamConnectionRow = typeof UpstreamConnectionRow.Type;

/** A consent under way: what the callback needs to finish it; taken (deleted) by the one callback that uses it. */
export const UpstreamAuthorizationRow = Schema.Struct({
  id: Schema.String,
  tenant: Schema.String,
  providerId: Schema.String,
  principal: Schema.String,
  serverTokenId: Schema.NullOr(Schema.String),
  scopes: Schema.Array(Schema.String),
  /** The PKCE code verifier, encrypted. */
  codeVerifierCipher: Schema.String,
  expiresAt: Schema.DateFromSelf,
  createdAt: Schema.DateFromSelf,
});
export type UpstreamAuthorizationRow = typeof UpstreamAuthorizationRow.Type;
