import { Schema } from "effect";
import { optional } from "../validation/optional-field.js";
import { Id } from "../ids/id.js";
import { HeaderName, HeaderValue } from "../validation/http-header.js";
import { JsonSchemaObject, ObjectJsonSchema } from "../validation/json-schema.js";
import { JsonObject, LongText, Title } from "../validation/text.js";
import { ResponseFilter } from "../response-shaping/response-filter.js";
import { BodyEncoding, MediaType, OutputSchemaMode } from "./tool-body-fields.js";

/** The HTTP methods a tool may call, normalised to upper case on input. */
export const HTTP_METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"] as const;
export const HttpMethod = Schema.compose(Schema.Uppercase, Schema.Literal(...HTTP_METHODS), {
  strict: false,
}).annotations({
  jsonSchema: {
    type: "string",
    enum: HTTP_METHODS,
    description: "the upstream HTTP method; any case is accepted and stored upper case",
  },
});

/** An MCP tool name: camelCase, 1–20 characters. */
export const ToolName = Schema.String.pipe(
  Schema.pattern(/^[a-z][a-zA-Z0-9]{0,19}$/, {
    message: () => "must be camelCase: a lower-case letter, then letters or digits, 20 characters at most",
  }),
);

/** Placeholder names inside a path template such as `/repos/{owner}/{repo}`. */
export const pathPlaceholders = (path: string): ReadonlyArray<string> =>
  Array.from(path.matchAll(/\{([^{}]*)\}/g), (m) => m[1] ?? "");

/** The rules of `ToolPath` as one regular expression, for its JSON Schema. */
const TOOL_PATH_PATTERN = /^\/(?:[^\s?#{}\u0000-\u001f\u007f]|\{[A-Za-z_][A-Za-z0-9_]*\})*$/;

/** An upstream path template: starts with `/`, no query or fragment, `{name}` placeholders. */
export const ToolPath = Schema.String.pipe(
  Schema.filter(
    (path) => {
      if (!path.startsWith("/")) return "must start with /";
      if (path.length > 2048) return "must be at most 2048 characters";
      if (/[\s?#\u0000-\u001f\u007f]/.test(path)) return "must not contain white space, control characters, ? or #";
      if (/[{}]/.test(path.replace(/\{[^{}]*\}/g, ""))) return "has unbalanced braces";
      for (const name of pathPlaceholders(path))
        if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name))
          return `placeholder {${name}} must be a name of letters, digits and _`;
      return true;
    },
    {
      jsonSchema: {
        pattern: TOOL_PATH_PATTERN.source,
        maxLength: 2048,
        description:
          "upstream path template: starts with /, no white space, query or fragment; {name} placeholders, each a required property of pathArgsJSONSchema",
      },
    },
  ),
);

/** One extra header a tool sends upstream; the value may reference variables as `${NAME}`. */
export const ToolHeader = Schema.Struct({ key: HeaderName, value: HeaderValue });
export type ToolHeader = typeof ToolHeader.Type;

/** An OAuth 2.0 scope token. */
const OAuthScopeName = Schema.String.pipe(
  Schema.pattern(/^[\x21\x23-\x5b\x5d-\x7e]{1,256}$/, { message: () => "must be an OAuth 2.0 scope token" }),
);

const toolFields = {
  method: optional(HttpMethod),
  path: optional(ToolPath),
  name: optional(ToolName),
  title: optional(Title),
  description: optional(LongText),
  pathArgsJSONSchema: optional(ObjectJsonSchema),
  queryArgsJSONSchema: optional(ObjectJsonSchema),
  reqBodyJSONSchema: optional(JsonSchemaObject),
  reqContentType: optional(
    MediaType.annotations({ description: "the media type the tool sends its body as; default application/json" }),
  ),
  reqBodyEncoding: optional(BodyEncoding),
  respBodyJSONSchema: optional(
    Schema.NullOr(JsonSchemaObject).annotations({
      description: "the JSON Schema of the upstream's success answer (the MCP outputSchema); null or {} for none",
    }),
  ),
  outputSchemaMode: optional(OutputSchemaMode),
  responseFilter: optional(
    Schema.NullOr(ResponseFilter).annotations({
      description: "shapes the upstream's JSON answer before the caller reads it (JMESPath or jq); null for none",
    }),
  ),
  headers: optional(Schema.Array(ToolHeader).pipe(Schema.maxItems(100))),
  oauth2Scopes: optional(Schema.Array(OAuthScopeName).pipe(Schema.maxItems(100))),
};

/** Write shape of a tool on update: every field optional. */
export const ToolPatch = Schema.Struct(toolFields).annotations({ identifier: "ToolPatch" });
export type ToolPatch = typeof ToolPatch.Type;

/** Write shape of a tool on create: `name`, `method` and `path` required. */
export const ToolCreate = Schema.Struct({
  ...toolFields,
  method: HttpMethod,
  path: ToolPath,
  name: ToolName,
}).annotations({ identifier: "ToolCreate" });
export type ToolCreate = typeof ToolCreate.Type;

/** Output-only tool fields that writes may carry and that are ignored. */
export const TOOL_OUTPUT_FIELDS = ["id", "providerID", "createdAt", "updatedAt"] as const;

/** A tool as returned by the API. */
export const ToolRecord = Schema.Struct({
  id: Id,
  providerID: Id,
  method: Schema.Literal(...HTTP_METHODS),
  path: Schema.String,
  name: Schema.String,
  title: Schema.String,
  description: Schema.String,
  pathArgsJSONSchema: JsonObject,
  queryArgsJSONSchema: JsonObject,
  reqBodyJSONSchema: JsonObject,
  reqContentType: Schema.String,
  reqBodyEncoding: BodyEncoding,
  respBodyJSONSchema: Schema.NullOr(JsonObject).annotations({
    description: "the JSON Schema of the upstream's success answer (the MCP outputSchema); null when none",
  }),
  outputSchemaMode: OutputSchemaMode,
  responseFilter: Schema.NullOr(ResponseFilter).annotations({
    description: "shapes the upstream's JSON answer before the caller reads it; null when none",
  }),
  headers: Schema.Array(ToolHeader),
  oauth2Scopes: Schema.Array(Schema.String),
}).annotations({ identifier: "ProviderTool" });
export type ToolRecord = typeof ToolRecord.Type;
