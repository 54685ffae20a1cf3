import { type DomainError, InvalidArgument } from "@mcpsm/domain/errors";
import { Effect } from "effect";
import { DescriptionFetcher } from "./description-fetcher.js";

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** A problem the reader found in a fetched description, named at `import.url` (where the caller put it). */
const atUrl = (error: DomainError): DomainError => {
  if (error._tag !== "InvalidArgument") return error;
  const moved = (path: string) => path === "import.document" || path.startsWith("import.document.");
  if (!error.errors.some((p) => moved(p.path))) return error;
  const errors = error.errors.map((p) =>
    moved(p.path)
      ? {
          path: "import.url",
          message: `not a usable description: ${p.path === "import.document" ? "" : `${p.path.slice(16)}: `}${p.message}`,
        }
      : p,
  );
  const [first] = errors;
  return new InvalidArgument({ ...error, detail: first ? `${first.path}: ${first.message}` : error.detail, errors });
};

/**
 * Runs an import use case on `body`; an `import.url` (without a document) is first fetched by the service
 * (DescriptionFetcher) and given to the use case as the document's text. Domain stays pure: it gets a document.
 * With `asDocumentURL` (a create), the URL also becomes the provider's `documentURL` unless the caller gave one.
 */
export const importFromUrl = <A, R>(
  body: unknown,
  useCase: (body: unknown) => Effect.Effect<A, DomainError, R>,
  asDocumentURL = false,
): Effect.Effect<A, DomainError, R | DescriptionFetcher> => {
  if (!isObject(body) || !isObject(body.import) || "document" in body.import || typeof body.import.url !== "string")
    return useCase(body);
  const { url, ...rest } = body.import;
  const provider = rest.provider;
  const withDocumentURL =
    asDocumentURL && (provider === undefined || (isObject(provider) && !("documentURL" in provider)))
      ? { ...rest, provider: { ...provider, documentURL: url } }
      : rest;
  return Effect.flatMap(DescriptionFetcher, (fetcher) => fetcher.fetch(url as string)).pipe(
    Effect.flatMap((document) => useCase({ ...body, import: { ...withDocumentURL, document } })),
    Effect.mapError(atUrl),
  );
};
