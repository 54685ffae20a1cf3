import { Schema } from "effect";
import { optional } from "../validation/optional-field.js";
import { Id } from "../ids/id.js";
import { ProviderPatch, ProviderRecord } from "../provider/provider-schema.js";
import { ToolRecord } from "../tool/tool-schema.js";

// Wire shapes of docs/api-rules.md §15: the bodies of POST /providers/import and POST /providers/{id}/import,
// and the `{provider, report}` they answer.

const DOCUMENT_DESCRIPTION =
  "a Swagger 2.0, OpenAPI 3.0.x or 3.1.x description of at most 10 MiB: the document as a JSON object, or its text (JSON or YAML) as a string";

// Unknown here: the reader, not the schema, says what is wrong with a document (with paths inside it).
const DocumentField = Schema.Unknown.annotations({
  description: DOCUMENT_DESCRIPTION,
  jsonSchema: { anyOf: [{ type: "object" }, { type: "string" }], description: DOCUMENT_DESCRIPTION },
});

const URL_DESCRIPTION =
  "instead of document (exactly one of the two): an http(s) URL the service fetches the description from, under the upstream address policy";
const UrlField = optional(Schema.String.annotations({ description: URL_DESCRIPTION }));

const DryRunField = optional(
  Schema.Boolean.annotations({ description: "true: report what would change and store nothing", default: false }),
);

/** Body of `POST /providers/import` (inside the `import` envelope). */
export const ProviderImport = Schema.Struct({
  document: optional(DocumentField),
  url: UrlField,
  provider: optional(
    ProviderPatch.annotations({ description: "provider fields that override the ones read from the document" }),
  ),
  dryRun: DryRunField,
}).annotations({ identifier: "ProviderImport" });
export type ProviderImport = typeof ProviderImport.Type;

/** Body of `POST /providers/{id}/import` (inside the `import` envelope). */
export const ProviderResync = Schema.Struct({
  document: optional(DocumentField),
  url: UrlField,
  provider: optional(
    ProviderPatch.pipe(Schema.pick("description", "documentURL", "oauth2Config")).annotations({
      description:
        "provider fields that override the ones a re-sync takes from the document (description, documentURL, oauth2Config URLs)",
    }),
  ),
  dryRun: DryRunField,
}).annotations({
  identifier: "ProviderResync",
});
export type ProviderResync = typeof ProviderResync.Type;

const Method = Schema.String.annotations({ description: "HTTP method, upper case" });

/** A tool of the report: its name and the operation it maps. */
const ReportTool = Schema.Struct({ name: Schema.String, method: Method, path: Schema.String });

/** What an import did, or (dry run) would do. */
export const ImportReport = Schema.Struct({
  added: Schema.Array(ReportTool),
  changed: Schema.Array(
    Schema.Struct({
      ...ReportTool.fields,
      fields: Schema.Array(Schema.String).annotations({ description: "the tool fields that changed" }),
    }),
  ),
  removed: Schema.Array(ReportTool),
  kept: Schema.Array(
    Schema.Struct({
      ...ReportTool.fields,
      reason: Schema.String.annotations({ description: "why the tool of a removed operation stays" }),
    }),
  ),
  unchanged: Schema.Int.annotations({ description: "matched tools the document left as they were" }),
  skipped: Schema.Array(Schema.Struct({ method: Method, path: Schema.String, reason: Schema.String })),
  warnings: Schema.Array(Schema.Struct({ path: Schema.String, message: Schema.String })),
}).annotations({ identifier: "ImportReport" });
export type ImportReport = typeof ImportReport.Type;

/** A tool in an import answer: a tool that a dry run would add has no id yet. */
const ImportedTool = Schema.Struct({
  ...ToolRecord.fields,
  id: optional(Id),
  providerID: optional(Id),
}).annotations({ identifier: "ImportedTool" });

/** A provider in an import answer: a dry run of a create has no id yet. */
const ImportedProvider = Schema.Struct({
  ...ProviderRecord.fields,
  id: optional(Id),
  tools: Schema.Array(ImportedTool),
}).annotations({ identifier: "ImportedProvider" });

/** The answer of both import routes. */
export const ImportResult = Schema.Struct({ provider: ImportedProvider, report: ImportReport }).annotations({
  identifier: "ImportResult",
});
export type ImportResult = typeof ImportResult.Type;
