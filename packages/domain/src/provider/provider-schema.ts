import { Schema } from "effect";
import { optional } from "../validation/optional-field.js";
import { Id } from "../ids/id.js";
import { ToolRecord } from "../tool/tool-schema.js";
import { HttpUrl, OptionalHttpUrl } from "../validation/http-url.js";
import { LongText, Name } from "../validation/text.js";

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
  createdAt: Schema.String,
  updatedAt: Schema.String,
  version: Schema.Number,
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
