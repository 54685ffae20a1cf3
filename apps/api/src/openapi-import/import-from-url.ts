import { type DomainError, InvalidArgument } from "@mcpsm/domain/errors";
import { Effect } from "effect";
import { DescriptionFetcher } from "./description-fetcher.js";
import { gated, type ImportGate } from "./import-gate.js";

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
 * (DescriptionFetcher) and given to the use case as the document's text, with the URL it came from (what the
 * domain makes of that URL is its rule). Domain stays pure: it gets a document. The tenant's imports at
 * once are bounded (ImportGate), fetch included.
 */
export const importFromUrl = <A, R>(
  body: unknown,
  useCase: (body: unknown, fetchedFrom?: string) => Effect.Effect<A, DomainError, R>,
  tenant: string,
): Effect.Effect<A, DomainError, R | DescriptionFetcher | ImportGate> => {
  if (!isObject(body) || !isObject(body.import) || "document" in body.import || typeof body.import.url !== "string")
    return gated(tenant, useCase(body));
  const { url, ...rest } = body.import;
  return gated(
    tenant,
    Effect.flatMap(DescriptionFetcher, (fetcher) => fetcher.fetch(url as string)).pipe(
      Effect.flatMap((document) => useCase({ ...body, import: { ...rest, document } }, url as string)),
      Effect.mapError(atUrl),
    ),
  );
};
