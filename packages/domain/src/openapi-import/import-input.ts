import { Effect, type Schema } from "effect";
import type { InvalidArgument } from "../errors/domain-errors.js";
import { PROVIDER_OUTPUT_FIELDS } from "../provider/provider-schema.js";
import { decodeEnvelope, invalid } from "../validation/decode-write.js";
import { ProviderImport, ProviderResync } from "./import-schema.js";

// The typed inputs of the OpenAPI import and re-sync (docs/api-rules.md §15), and their decoders from the
// `import` envelope of a request body.

/** Where a description comes from: the document itself, or a URL the service fetches it from. */
export type DescriptionSource =
  | { readonly _tag: "Document"; readonly document: unknown }
  | { readonly _tag: "Url"; readonly url: string };

/** Input of `importProvider`. */
export interface ProviderImportInput {
  readonly source: DescriptionSource;
  /** Provider fields that override the ones read from the document. */
  readonly provider?: ProviderImport["provider"];
  readonly dryRun?: boolean | undefined;
}

/** Input of `resyncProvider`. */
export interface ProviderResyncInput {
  readonly providerId: string;
  readonly source: DescriptionSource;
  readonly provider?: ProviderResync["provider"];
  readonly dryRun?: boolean | undefined;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** Output-only provider fields sent in `import.provider` are ignored, as in every provider write (§6). */
const withoutProviderOutputFields = (body: unknown): unknown => {
  if (!isObject(body) || !isObject(body.import) || !isObject(body.import.provider)) return body;
  const provider = Object.fromEntries(
    Object.entries(body.import.provider).filter(
      ([key]) => !(PROVIDER_OUTPUT_FIELDS as ReadonlyArray<string>).includes(key),
    ),
  );
  return { ...body, import: { ...body.import, provider } };
};

/**
 * `import.document` or `import.url`, exactly one. The document is left to the reader (a 10 MiB document is
 * not walked for text no store can keep; the text that is kept is checked where it lands).
 */
const sourceOf = <A extends { readonly document?: unknown; readonly url?: string | undefined }>(
  input: A,
): Effect.Effect<DescriptionSource, InvalidArgument> => {
  const hasDocument = "document" in input;
  if (hasDocument && input.url === undefined) return Effect.succeed({ _tag: "Document", document: input.document });
  if (!hasDocument && input.url !== undefined) return Effect.succeed({ _tag: "Url", url: input.url });
  const message = hasDocument
    ? "give either import.document or import.url, not both"
    : "is required: give import.document or import.url";
  return Effect.fail(
    invalid([
      { path: "import.document", message },
      { path: "import.url", message },
    ]),
  );
};

/** Decodes the `import` envelope with `schema`, the document set aside for the reader. */
const decodeImport = <A extends { readonly document?: unknown; readonly url?: string | undefined }, I>(
  schema: Schema.Schema<A, I>,
  body: unknown,
) => {
  const decoded =
    !isObject(body) || !isObject(body.import) || !("document" in body.import)
      ? decodeEnvelope("import", schema, [], body)
      : (() => {
          const { document, ...rest } = body.import;
          return Effect.map(
            decodeEnvelope("import", schema, [], { ...body, import: { ...rest, document: null } }),
            (input) => ({ ...input, document }),
          );
        })();
  return Effect.flatMap(decoded, (input) => Effect.map(sourceOf(input), (source) => ({ input, source })));
};

/** Decodes the body of `POST /providers/import`. */
export const decodeProviderImport = (body: unknown): Effect.Effect<ProviderImportInput, InvalidArgument> =>
  Effect.map(decodeImport(ProviderImport, withoutProviderOutputFields(body)), ({ input, source }) => ({
    source,
    ...(input.provider === undefined ? {} : { provider: input.provider }),
    dryRun: input.dryRun === true,
  }));

/** Decodes the body of `POST /providers/{id}/import` (the provider's id comes from the path). */
export const decodeProviderResync = (
  body: unknown,
): Effect.Effect<Omit<ProviderResyncInput, "providerId">, InvalidArgument> =>
  Effect.map(decodeImport(ProviderResync, body), ({ input, source }) => ({
    source,
    ...(input.provider === undefined ? {} : { provider: input.provider }),
    dryRun: input.dryRun === true,
  }));
