import { Schema } from "effect";
import { optional } from "../validation/optional-field.js";
import { Id } from "../ids/id.js";
import { GitRepoFullName } from "../git-connection/git-connection-schema.js";
import { PromptRecord } from "../prompt/prompt-schema.js";
import { ProviderRecord } from "../provider/provider-schema.js";
import { ResourceRecord } from "../resource/resource-schema.js";
import { MaxResultTokens } from "../response-shaping/response-filter.js";
import { ToolRecord } from "../tool/tool-schema.js";
import { ApprovalPolicy, ServerToolSettings } from "./tool-settings-schema.js";
import { AnyJsonValue, Int32, LongText, Name, Timestamp, WireInt32 } from "../validation/text.js";

/**
 * A reference by id. Only the id is used: other fields (a client echoing full records back) are ignored,
 * as the spec says of the server write shape.
 */
const RefById = Schema.Struct({ id: Id }, Schema.Record({ key: Schema.String, value: AnyJsonValue }));

/** A provider chosen for a server; `tools` absent means every tool the provider has now. */
export const ServerProviderRef = Schema.Struct(
  { id: Id, tools: optional(Schema.Array(RefById).pipe(Schema.maxItems(1000))) },
  Schema.Record({ key: Schema.String, value: AnyJsonValue }),
);

const serverFields = {
  name: optional(Name),
  instructions: optional(LongText),
  description: optional(LongText),
  version: optional(Int32),
  requestHeadersProxyEnabled: optional(Schema.Boolean),
  dynamicToolDiscoveryEnabled: optional(Schema.Boolean),
  maxResultTokens: optional(MaxResultTokens),
  providers: optional(Schema.Array(ServerProviderRef).pipe(Schema.maxItems(1000))),
  resources: optional(Schema.Array(RefById).pipe(Schema.maxItems(1000))),
  prompts: optional(Schema.Array(RefById).pipe(Schema.maxItems(1000))),
  /** The git connection to push the server through (docs/api-rules.md §17); "" disconnects. */
  gitConnectionID: optional(
    Schema.Union(Id, Schema.Literal("")).annotations({
      description: 'id of a git connection of the tenant; "" for none',
    }),
  ),
  gitRepoFullName: optional(GitRepoFullName),
  /** Which calls wait for a person's approval (docs/api-rules.md §20). */
  approvalPolicy: optional(ApprovalPolicy),
};

/** Write shape of a server on update; `version`, when present, makes the write conditional. */
export const ServerPatch = Schema.Struct(serverFields).annotations({ identifier: "ServerPatch" });
export type ServerPatch = typeof ServerPatch.Type;

/** Write shape of a server on create: `name` required; `version` ignored. */
export const ServerCreate = Schema.Struct({ ...serverFields, name: Name }).annotations({
  identifier: "ServerCreate",
});
export type ServerCreate = typeof ServerCreate.Type;

/** Output-only server fields ignored in writes. */
export const SERVER_OUTPUT_FIELDS = ["id", "createdAt", "updatedAt", "gitProvider"] as const;

/**
 * A chosen tool as a server shows it: the provider's tool and its settings in this server (§20). In a server
 * answer `serverSettings` is there only when the tool has settings; GET|PATCH of the one tool always shows it.
 */
export const ServerToolRecord = Schema.Struct({
  ...ToolRecord.fields,
  serverSettings: optional(ServerToolSettings),
}).annotations({ identifier: "ServerTool" });
export type ServerToolRecord = typeof ServerToolRecord.Type;

/** A provider of a server: the provider record whose tools are the chosen ones, with their settings. */
export const ServerProviderRecord = Schema.Struct({
  ...ProviderRecord.fields,
  tools: Schema.Array(ServerToolRecord),
}).annotations({ identifier: "ServerProvider" });
export type ServerProviderRecord = typeof ServerProviderRecord.Type;

/** A server as returned by the API: full provider records (with the chosen tools only), resources, prompts. */
export const ServerRecord = Schema.Struct({
  id: Id,
  createdAt: Timestamp,
  updatedAt: Timestamp,
  name: Schema.String,
  description: Schema.String,
  requestHeadersProxyEnabled: Schema.Boolean,
  dynamicToolDiscoveryEnabled: Schema.Boolean,
  maxResultTokens: Schema.Number.annotations({
    description: "the most o200k_base tokens a tool result of this server holds (docs/api-rules.md §19)",
    jsonSchema: { type: "integer" },
  }),
  version: WireInt32,
  gitProvider: Schema.String,
  gitRepoFullName: Schema.String,
  approvalPolicy: ApprovalPolicy,
  providers: Schema.Array(ServerProviderRecord),
  resources: Schema.Array(ResourceRecord),
  prompts: Schema.Array(PromptRecord),
}).annotations({ identifier: "Server" });
export type ServerRecord = typeof ServerRecord.Type;

/** Body of `POST /servers/{id}/tools` (with optional settings, docs/api-rules.md §20). */
export { ServerToolLink } from "./tool-settings-schema.js";
/** Body of `POST /servers/{id}/resources`. */
export const ServerResourceLink = Schema.Struct({ resourceID: Id }).annotations({ identifier: "ServerResourceLink" });
export type ServerResourceLink = typeof ServerResourceLink.Type;
/** Body of `POST /servers/{id}/prompts`. */
export const ServerPromptLink = Schema.Struct({ promptID: Id }).annotations({ identifier: "ServerPromptLink" });
export type ServerPromptLink = typeof ServerPromptLink.Type;
