import { Effect } from "effect";
import { type DomainError, InvalidArgument } from "../errors/domain-errors.js";
import { DescriptionFetcher } from "./description-fetcher.js";
import type { DescriptionSource } from "./import-input.js";

/** A problem the reader found in a fetched description, named at `import.url` (where the caller put it). */
const atUrl = <E extends DomainError>(error: E): E | InvalidArgument => {
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
 * Runs `importWith` on the description of `source`: a document as given, or the text fetched from a URL
 * (through the DescriptionFetcher port), with that URL as `fetchedFrom`; what is wrong with a fetched document
 * is then named at `import.url`.
 */
export const withDescription = <A, E extends DomainError, R>(
  source: DescriptionSource,
  importWith: (document: unknown, fetchedFrom: string | undefined) => Effect.Effect<A, E, R>,
): Effect.Effect<A, E | InvalidArgument, R | DescriptionFetcher> =>
  source._tag === "Document"
    ? importWith(source.document, undefined)
    : Effect.flatMap(DescriptionFetcher, (fetcher) => fetcher.fetch(source.url)).pipe(
        Effect.flatMap((document) => Effect.mapError(importWith(document, source.url), atUrl)),
      );
