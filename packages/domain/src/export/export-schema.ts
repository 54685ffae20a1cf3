import { Schema, Struct } from "effect";
import { Id } from "../ids/id.js";
import { PromptCreate, PromptRecord } from "../prompt/prompt-schema.js";
import { OAuth2ConfigWrite, ProviderCreate } from "../provider/provider-schema.js";
import { ResourceCreate, ResourceRecord } from "../resource/resource-schema.js";
import { MaxResultTokens } from "../response-shaping/response-filter.js";
import { ServerRecord, ServerToolRecord } from "../server/server-schema.js";
import { ApprovalPolicy, ServerToolSettingsPatch } from "../server/tool-settings-schema.js";
import { ToolCreate } from "../tool/tool-schema.js";
import { optional } from "../validation/optional-field.js";
import { Int32, LongText, Name } from "../validation/text.js";
import { VariableName, VariableType } from "../variable/variable-schema.js";

// The server export document of docs/api-rules.md §16: what `GET /servers/{id}/export` answers and
// `POST /servers/import` takes. One schema for both directions: an export is always a valid import. It holds
// no id, no timestamp, no secret: tools, prompts and resources carry their write fields only, a provider's
// oauth2Config never its client secret, variables only their name and type.

/** The `format` of every document of this version. */
export const SERVER_EXPORT_FORMAT = "mcpsm.server.v1";

/** Most providers, tools per provider, prompts or resources per provider, and variables a document holds. */
export const EXPORT_LIMITS = { providers: 1000, tools: 1000, prompts: 1000, resources: 1000, variables: 1000 } as const;

/**
 * A tool of the document: the tool's write fields (no id, no provider id, no timestamps), and its settings in
 * the server when it has any (docs/api-rules.md §20).
 */
export const ExportedTool = Schema.Struct({
  ...ToolCreate.fields,
  serverSettings: optional(ServerToolSettingsPatch),
}).annotations({ identifier: "ExportedTool" });
export type ExportedTool = typeof ExportedTool.Type;

/** A prompt of the document: the prompt's write fields. */
export const ExportedPrompt = Schema.Struct(PromptCreate.fields).annotations({ identifier: "ExportedPrompt" });
export type ExportedPrompt = typeof ExportedPrompt.Type;

/** A resource of the document: the resource's write fields. */
export const ExportedResource = Schema.Struct(ResourceCreate.fields).annotations({ identifier: "ExportedResource" });
export type ExportedResource = typeof ExportedResource.Type;

/** A provider's OAuth 2.0 client settings without the client secret (which never leaves the service). */
export const ExportedOAuth2Config = Schema.Struct(Struct.omit(OAuth2ConfigWrite.fields, "clientSecret")).annotations({
  identifier: "ExportedOAuth2Config",
});
export type ExportedOAuth2Config = typeof ExportedOAuth2Config.Type;

/**
 * A provider of the document: its fields but id, secretPrefix, timestamps and client secret; its tools (only
 * those the server chose), and the server's prompts and resources of this provider. `version` is the
 * exporting service's revision, for reading only: an import ignores it.
 */
export const ExportedProvider = Schema.Struct({
  ...Struct.omit(ProviderCreate.fields, "oauth2Config"),
  version: optional(
    Int32.annotations({ description: "the provider's revision where it was exported; ignored on import" }),
  ),
  oauth2Config: optional(ExportedOAuth2Config),
  tools: Schema.Array(ExportedTool).pipe(Schema.maxItems(EXPORT_LIMITS.tools)),
  prompts: Schema.Array(ExportedPrompt).pipe(Schema.maxItems(EXPORT_LIMITS.prompts)),
  resources: Schema.Array(ExportedResource).pipe(Schema.maxItems(EXPORT_LIMITS.resources)),
}).annotations({ identifier: "ExportedProvider" });
export type ExportedProvider = typeof ExportedProvider.Type;

/** A variable the server's tools reference: name and type, never the value. */
export const ExportedVariable = Schema.Struct({
  name: VariableName,
  type: VariableType,
  // docs/api-rules.md §23: present (true) when each caller holds its own value; never a value.
  perCaller: optional(Schema.Boolean),
}).annotations({
  identifier: "ExportedVariable",
});
export type ExportedVariable = typeof ExportedVariable.Type;

/** The server's own fields. */
export const ExportedServerFields = Schema.Struct({
  name: Name,
  description: optional(LongText),
  requestHeadersProxyEnabled: optional(Schema.Boolean),
  dynamicToolDiscoveryEnabled: optional(Schema.Boolean),
  maxResultTokens: optional(MaxResultTokens),
  approvalPolicy: optional(ApprovalPolicy),
}).annotations({ identifier: "ExportedServerFields" });
export type ExportedServerFields = typeof ExportedServerFields.Type;

/** A server as a portable document (docs/api-rules.md §16): the answer of an export, the body of an import. */
export const ServerExportDocument = Schema.Struct({
  format: Schema.Literal(SERVER_EXPORT_FORMAT),
  server: ExportedServerFields,
  providers: Schema.Array(ExportedProvider).pipe(Schema.maxItems(EXPORT_LIMITS.providers)),
  variables: Schema.Array(ExportedVariable).pipe(Schema.maxItems(EXPORT_LIMITS.variables)),
}).annotations({
  identifier: "ServerExportDocument",
  description:
    "a server with its providers, chosen tools, prompts and resources, and the names and types of the variables its tools reference; no id, timestamp or secret",
});
export type ServerExportDocument = typeof ServerExportDocument.Type;

/** A provider in an import report. */
const ReportProvider = Schema.Struct({
  id: optional(Id.annotations({ description: "absent in a dry run for a provider that would be created" })),
  name: Schema.String,
  baseURL: Schema.String,
});

/** A tool, prompt or resource in an import report, named with its provider. */
const ReportMember = Schema.Struct({
  provider: Schema.String.annotations({ description: "the provider's name" }),
  name: Schema.String,
});

const ReportTool = Schema.Struct({
  ...ReportMember.fields,
  method: Schema.String,
  path: Schema.String,
});

/** What an import did, or (dry run) would do. */
export const ServerImportReport = Schema.Struct({
  providers: Schema.Struct({ reused: Schema.Array(ReportProvider), created: Schema.Array(ReportProvider) }),
  tools: Schema.Struct({
    matched: Schema.Array(
      Schema.Struct({
        ...ReportTool.fields,
        differs: Schema.Array(Schema.String).annotations({
          description: "fields in which the tenant's tool differs from the document's (the tenant's is kept)",
        }),
      }),
    ),
    created: Schema.Array(ReportTool),
  }),
  prompts: Schema.Struct({ matched: Schema.Array(ReportMember), created: Schema.Array(ReportMember) }),
  resources: Schema.Struct({ matched: Schema.Array(ReportMember), created: Schema.Array(ReportMember) }),
  missingVariables: Schema.Array(
    Schema.Struct({ name: Schema.String, type: optional(VariableType), perCaller: optional(Schema.Boolean) }),
  ).annotations({
    description: "variables the server's tools reference that the tenant does not have",
  }),
  warnings: Schema.Array(Schema.Struct({ path: Schema.String, message: Schema.String })),
}).annotations({ identifier: "ServerImportReport" });
export type ServerImportReport = typeof ServerImportReport.Type;

const withOptionalIds = <F extends Schema.Struct.Fields>(fields: F) => ({
  ...fields,
  id: optional(Id),
  providerID: optional(Id),
});

/** A server in an import answer: in a dry run, records that would be created have no ids. */
export const ImportedServer = Schema.Struct({
  ...ServerRecord.fields,
  id: optional(Id),
  providers: Schema.Array(
    Schema.Struct({
      ...ServerRecord.fields.providers.value.fields,
      id: optional(Id),
      tools: Schema.Array(Schema.Struct(withOptionalIds(ServerToolRecord.fields))),
    }),
  ),
  resources: Schema.Array(Schema.Struct(withOptionalIds(ResourceRecord.fields))),
  prompts: Schema.Array(Schema.Struct(withOptionalIds(PromptRecord.fields))),
}).annotations({ identifier: "ImportedServer" });
export type ImportedServer = typeof ImportedServer.Type;

/** The answer of `POST /servers/import`. */
export const ServerImportResult = Schema.Struct({ server: ImportedServer, report: ServerImportReport }).annotations({
  identifier: "ServerImportResult",
});
export type ServerImportResult = typeof ServerImportResult.Type;
