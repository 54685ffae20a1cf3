import { Schema } from "effect";
import { optional } from "../validation/optional-field.js";
import { Id } from "../ids/id.js";
import { HttpUrl } from "../validation/http-url.js";
import { DateTimeString, LongText, Name, Timestamp, WireInt64 } from "../validation/text.js";

/** MCP resource annotations. */
export const ResourceAnnotations = Schema.Struct({
  audience: optional(Schema.Array(Schema.Literal("user", "assistant")).pipe(Schema.maxItems(2))),
  priority: optional(Schema.Number.pipe(Schema.between(0, 1, { message: () => "must be between 0 and 1" }))),
  lastModified: optional(DateTimeString),
});
export type ResourceAnnotations = typeof ResourceAnnotations.Type;

/** `type/subtype` with optional `; name=value` parameters. */
const MEDIA_TYPE =
  /^[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]{0,126}\/[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]{0,126}(\s*;\s*[A-Za-z0-9!#$&^_.+-]+=("[^"\r\n]*"|[A-Za-z0-9!#$&^_.+-]+))*$/;

/** A media type such as `text/plain` or `application/json; charset=utf-8`, or "". */
const MediaType = Schema.String.pipe(
  Schema.filter((s) => (s === "" || MEDIA_TYPE.test(s) ? true : "must be a media type such as text/plain"), {
    jsonSchema: { pattern: `^$|${MEDIA_TYPE.source}`, description: 'a media type such as text/plain, or ""' },
  }),
);

const resourceFields = {
  name: optional(Name),
  description: optional(LongText),
  uri: optional(HttpUrl),
  mimeType: optional(MediaType),
  size: optional(
    Schema.Int.pipe(
      Schema.between(0, Number.MAX_SAFE_INTEGER, { message: () => "must be a whole number ≥ 0" }),
      Schema.annotations({
        jsonSchema: { type: "integer", format: "int64", minimum: 0, maximum: Number.MAX_SAFE_INTEGER },
      }),
    ),
  ),
  annotations: optional(ResourceAnnotations),
};

/** Write shape of a resource on update. */
export const ResourcePatch = Schema.Struct(resourceFields).annotations({ identifier: "ResourcePatch" });
export type ResourcePatch = typeof ResourcePatch.Type;

/** Write shape of a resource on create: `name` and `uri` required. */
export const ResourceCreate = Schema.Struct({ ...resourceFields, name: Name, uri: HttpUrl }).annotations({
  identifier: "ResourceCreate",
});
export type ResourceCreate = typeof ResourceCreate.Type;

/** Output-only resource fields ignored in writes. */
export const RESOURCE_OUTPUT_FIELDS = ["id", "providerID", "createdAt", "updatedAt"] as const;

/** A resource as returned by the API. */
export const ResourceRecord = Schema.Struct({
  id: Id,
  providerID: Id,
  createdAt: Timestamp,
  updatedAt: Timestamp,
  name: Schema.String,
  description: Schema.String,
  uri: Schema.String,
  mimeType: Schema.String,
  size: WireInt64,
  annotations: ResourceAnnotations,
}).annotations({ identifier: "ProviderResource" });
export type ResourceRecord = typeof ResourceRecord.Type;
