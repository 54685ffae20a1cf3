import { Effect, Either, Schema } from "effect";
import type { FieldProblem } from "../errors/domain-errors.js";
import { ProviderCreate, type ProviderPatch } from "../provider/provider-schema.js";
import { mergeOAuth2 } from "../provider/provider-use-cases.js";
import type { ProviderRow } from "../storage/rows.js";
import { parseProblems, unstorableText } from "../validation/decode-write.js";
import { httpUrlProblem } from "../validation/http-url.js";
import type { ApiDescription } from "./api-description.js";
import type { ProviderResync } from "./import-schema.js";
import { usableOAuth2 } from "./operation-mapping.js";

// The provider's own fields from a description (docs/api-rules.md §15, §15a): on import, what `info`, the
// first server and the first usable OAuth 2.0 flow give, under the caller's overrides; on re-sync, the fields
// a new version of the description updates.

const ROOT = "import.document";

/** Where the provider's baseURL comes from when the description names no absolute server (§15a). */
export interface ServerContext {
  /** A dry run only warns: the import itself will need `import.provider.baseURL`. */
  readonly dryRun: boolean;
  /** The URL the description was fetched from: a relative server resolves against it. */
  readonly fetchedFrom?: string | undefined;
}

/** A server URL resolved against the URL the description came from, when it is relative and one is known. */
const resolvedServer = (server: string | undefined, fetchedFrom: string | undefined): string | undefined => {
  if (server === undefined || fetchedFrom === undefined || httpUrlProblem(server) === undefined) return server;
  try {
    return new URL(server, fetchedFrom).href;
  } catch {
    return server;
  }
};

/** A dry run without a server shows the provider under this stand-in, never stored. */
export const NO_SERVER = "https://server.invalid";

/** The provider fields a description gives, with the caller's overrides on top; every problem located. */
export const providerFields = (description: ApiDescription, overrides: ProviderPatch, context: ServerContext) => {
  const server = resolvedServer(description.servers[0], context.fetchedFrom);
  const warnings: Array<FieldProblem> = [];
  const oauth2 = usableOAuth2(description);
  const documented = {
    name: description.title.trim().slice(0, 100).trim(),
    description: description.description.slice(0, 10_000),
    baseURL: server ?? "",
    ...(oauth2?.flow === undefined
      ? {}
      : {
          oauth2Config: {
            authURL: oauth2.flow.kind === "authorizationCode" ? oauth2.flow.authorizationUrl : "",
            tokenURL: oauth2.flow.tokenUrl,
          },
        }),
  };
  const merged = {
    ...documented,
    ...overrides,
    ...(overrides.oauth2Config === undefined || overrides.oauth2Config === null
      ? {}
      : { oauth2Config: { ...documented.oauth2Config, ...overrides.oauth2Config } }),
  };
  const problems: Array<FieldProblem> = [];
  for (const [field, at] of [
    ["name", "info.title"],
    ["description", "info.description"],
    ["baseURL", "servers[0].url"],
  ] as const) {
    const message = overrides[field] === undefined ? unstorableText(documented[field]) : undefined;
    if (message !== undefined) problems.push({ path: `${ROOT}.${at}`, message });
  }
  if (overrides.name === undefined && documented.name === "")
    problems.push({ path: `${ROOT}.info.title`, message: "is empty: give import.provider.name" });
  let standIn = false;
  if (overrides.baseURL === undefined) {
    const problem = server === undefined ? "names no server" : httpUrlProblem(server);
    const what = `the description ${server === undefined ? "names no server" : `names no absolute server URL ('${server}')`}`;
    if (problem !== undefined && context.dryRun) {
      warnings.push({
        path: `${ROOT}.servers`,
        message: `${what}: the import itself needs import.provider.baseURL (the tools call paths under it)`,
      });
      standIn = true;
    } else if (problem !== undefined)
      problems.push({ path: "import.provider.baseURL", message: `is required: ${what}` });
  }
  if (problems.length > 0) return Either.left(problems);
  const decoded = Schema.decodeUnknownEither(ProviderCreate, { errors: "all" })(
    standIn ? { ...merged, baseURL: NO_SERVER } : merged,
  );
  return Either.isLeft(decoded)
    ? Either.left(parseProblems("import.provider", decoded.left))
    : Either.right({
        fields: standIn ? { ...decoded.right, baseURL: server ?? "" } : decoded.right,
        standIn,
        warnings,
        oauth2Scheme: oauth2?.flow === undefined ? undefined : oauth2.name,
      });
};

/**
 * The provider's own fields after a re-sync (§15a): `description`, `documentURL` (the URL the document was
 * fetched from) and the oauth2Config URLs come from the document, unless the request overrides them; what
 * the document does not give stays as stored.
 */
export const resyncedProvider = (
  stored: ProviderRow,
  description: ApiDescription,
  overrides: ProviderResync["provider"],
  fetchedFrom: string | undefined,
) =>
  Effect.gen(function* () {
    const flow = usableOAuth2(description)?.flow;
    const documented =
      flow === undefined
        ? undefined
        : { authURL: flow.kind === "authorizationCode" ? flow.authorizationUrl : "", tokenURL: flow.tokenUrl };
    const oauth2Write =
      overrides?.oauth2Config !== undefined
        ? overrides.oauth2Config === null
          ? null
          : { ...documented, ...overrides.oauth2Config }
        : stored.oauth2Config === null
          ? undefined
          : documented;
    const text = description.description.slice(0, 10_000);
    return {
      ...stored,
      description:
        overrides?.description ?? (text !== "" && unstorableText(text) === undefined ? text : stored.description),
      documentURL: overrides?.documentURL ?? fetchedFrom ?? stored.documentURL,
      oauth2Config: yield* mergeOAuth2(stored.oauth2Config, oauth2Write),
    } satisfies ProviderRow;
  });

export const PROVIDER_RESYNCED = ["description", "documentURL", "oauth2Config"] as const;
