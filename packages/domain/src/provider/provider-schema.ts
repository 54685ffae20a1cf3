import { Schema } from "effect";
import { optional } from "../validation/optional-field.js";
import { Id } from "../ids/id.js";
import { ToolRecord } from "../tool/tool-schema.js";
import { HttpUrl, OptionalHttpUrl } from "../validation/http-url.js";
import { pageParameters } from "../listing/page-schema.js";
import { literalFromQuery, QueryValue } from "../listing/query-parameters.js";
import { LongText, Name, Timestamp, WireInt32 } from "../validation/text.js";

/** Provider API kinds accepted on the wire (`INVALID` is refused). */
export const ApiType = Schema.Literal("REST");
export type ApiType = typeof ApiType.Type;

/** Provider visibility accepted on the wire (`INVALID` is refused). */
export const VisibilityType = Schema.Literal("INTERNAL", "PUBLIC");
export type VisibilityType = typeof VisibilityType.Type;

const ShortText = Schema.String.pipe(Schema.maxLength(1000, { message: () => "must be at most 1000 characters" }));

/** OAuth 2.0 client settings as written; `clientSecret` is write-only. */
export const OAuth2ConfigWrite = Schema.Struct({
  clientID: optional(ShortText),
  clientSecret: optional(
    Schema.String.pipe(Schema.maxLength(4096, { message: () => "must be at most 4096 characters" })),
  ),
  authURL: optional(OptionalHttpUrl),
  tokenURL: optional(OptionalHttpUrl),
});
export type OAuth2ConfigWrite = typeof OAuth2ConfigWrite.Type;

const providerFields = {
  apiType: optional(ApiType),
  visibilityType: optional(VisibilityType),
  baseURL: optional(HttpUrl),
  documentURL: optional(OptionalHttpUrl),
  iconURL: optional(OptionalHttpUrl),
  name: optional(Name),
  description: optional(LongText),
  oauth2Config: optional(Schema.NullOr(OAuth2ConfigWrite)),
};

/** Write shape of a provider on update: every field optional; `oauth2Config: null` removes the config. */
export const ProviderPatch = Schema.Struct(providerFields).annotations({ identifier: "ProviderPatch" });
export type ProviderPatch = typeof ProviderPatch.Type;

/** Write shape of a provider on create: `name` and `baseURL` required. */
export const ProviderCreate = Schema.Struct({ ...providerFields, name: Name, baseURL: HttpUrl }).annotations({
  identifier: "ProviderCreate",
});
export type ProviderCreate = typeof ProviderCreate.Type;

/** Output-only provider fields ignored in writes. */
export const PROVIDER_OUTPUT_FIELDS = ["id", "createdAt", "updatedAt", "version", "secretPrefix", "tools"] as const;

/** OAuth 2.0 client settings as returned: never the secret. */
export const OAuth2ConfigRecord = Schema.Struct({
  clientID: Schema.String,
  authURL: Schema.String,
  tokenURL: Schema.String,
}).annotations({ identifier: "ProviderOAuth2Config" });

/** A provider as returned by the API, with its tools. */
export const ProviderRecord = Schema.Struct({
  id: Id,
  createdAt: Timestamp,
  updatedAt: Timestamp,
  version: WireInt32,
  apiType: ApiType,
  visibilityType: VisibilityType,
  baseURL: Schema.String,
  documentURL: Schema.String,
  iconURL: Schema.String,
  secretPrefix: Schema.String,
  name: Schema.String,
  description: Schema.String,
  tools: Schema.Array(ToolRecord),
  oauth2Config: optional(OAuth2ConfigRecord),
}).annotations({ identifier: "Provider" });
export type ProviderRecord = typeof ProviderRecord.Type;

// Kept exported from here: the public schemas (and other teams) name them from this module.
export { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from "../listing/page-schema.js";

/**
 * The query parameters of `GET /providers` (docs/api-rules.md §11), each at most once; any other parameter is
 * refused. The encoded side is the query string as parsed (strings; a repeated parameter is an array and is
 * refused); the decoded side is the typed `ProviderListQuery` that `listProviders` takes. An empty
 * `token`, `nameContains` or `baseURLContains` means "none".
 */
export const ProviderListParameters = Schema.Struct({
  // Each field's `jsonSchema` is what a client sends (for the OpenAPI document), not the string decoding.
  ...pageParameters(
    "the nextToken of the previous page (opaque; valid only with the same filters); absent or empty for the first page",
  ),
  nameContains: optional(
    QueryValue.annotations({
      jsonSchema: { type: "string", description: "only providers whose name contains this text (case-insensitive)" },
    }),
  ),
  baseURLContains: optional(
    QueryValue.annotations({
      jsonSchema: {
        type: "string",
        description: "only providers whose baseURL contains this text (case-insensitive)",
      },
    }),
  ),
  apiType: optional(
    literalFromQuery(ApiType.literals, "must be REST").annotations({
      jsonSchema: { type: "string", enum: ApiType.literals, description: "only providers of this API type" },
    }),
  ),
  visibility: optional(
    literalFromQuery(VisibilityType.literals, "must be INTERNAL or PUBLIC").annotations({
      jsonSchema: {
        type: "string",
        enum: VisibilityType.literals,
        description: "only providers of this visibilityType",
      },
    }),
  ),
});

/** A typed `GET /providers` query: page size (clamped to MAX_PAGE_SIZE), page token and filters. */
export type ProviderListQuery = typeof ProviderListParameters.Type;
