import { Effect, Schema } from "effect";
import type { FieldProblem } from "../errors/domain-errors.js";
import { PageTokenSigner } from "../secrets/page-token-signer.js";
import type { ProviderCursor } from "../storage/storage-port.js";
import type { Actor } from "../tenancy/actor.js";
import { read } from "../use-case/use-case-kit.js";
import { invalid, unstorableText } from "../validation/decode-write.js";
import { toProviderRecord } from "./provider-record.js";
import {
  ApiType,
  DEFAULT_PAGE_SIZE,
  MAX_PAGE_SIZE,
  ProviderListParameters,
  type ProviderRecord,
  VisibilityType,
} from "./provider-schema.js";

/** Query parameters as an HTTP framework hands them over. */
export type ProviderListQuery = Readonly<Record<string, string | ReadonlyArray<string> | undefined>>;

/** A page of providers as the API returns it. */
export interface ProviderListPage {
  readonly providers: ReadonlyArray<ProviderRecord>;
  readonly matchCount: number;
  /** Opaque token of the next page; "" on the last page. */
  readonly nextToken: string;
}

export { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE };
const KNOWN: ReadonlyArray<string> = Object.keys(ProviderListParameters.fields);
const isApiType = Schema.is(ApiType);
const isVisibility = Schema.is(VisibilityType);

interface Filters {
  readonly nameContains?: string | undefined;
  readonly baseURLContains?: string | undefined;
  readonly apiType?: ApiType | undefined;
  readonly visibility?: VisibilityType | undefined;
}

/** Reads and checks the query, reporting every bad parameter. */
const parseQuery = (query: ProviderListQuery) => {
  const problems: Array<FieldProblem> = [];
  const single = (name: string): string | undefined => {
    const value = query[name];
    if (typeof value === "string") {
      const message = unstorableText(value);
      if (message === undefined) return value;
      problems.push({ path: name, message });
      return undefined;
    }
    if (value === undefined) return value;
    problems.push({ path: name, message: "must be given once" });
    return undefined;
  };
  for (const name of Object.keys(query))
    if (!KNOWN.includes(name)) problems.push({ path: name, message: "unknown query parameter" });
  let limit = DEFAULT_PAGE_SIZE;
  const rawLimit = single("limit");
  if (rawLimit !== undefined) {
    if (!/^-?\d{1,15}$/.test(rawLimit)) problems.push({ path: "limit", message: "must be a whole number" });
    else if (Number(rawLimit) < 1) problems.push({ path: "limit", message: "must be at least 1" });
    else limit = Math.min(Number(rawLimit), MAX_PAGE_SIZE);
  }
  const apiType = single("apiType");
  if (apiType !== undefined && !isApiType(apiType)) problems.push({ path: "apiType", message: "must be REST" });
  const visibility = single("visibility");
  if (visibility !== undefined && !isVisibility(visibility))
    problems.push({ path: "visibility", message: "must be INTERNAL or PUBLIC" });
  const filters: Filters = {
    nameContains: nonEmpty(single("nameContains")),
    baseURLContains: nonEmpty(single("baseURLContains")),
    apiType: apiType as ApiType | undefined,
    visibility: visibility as VisibilityType | undefined,
  };
  return { problems, limit, filters, token: nonEmpty(single("token")) };
};

const nonEmpty = (value: string | undefined) => (value === "" ? undefined : value);

/** The signed content of a nextToken: whose it is, for which filters, and where the page ends. */
interface TokenPayload {
  readonly t: string;
  readonly f: string;
  readonly c: number;
  readonly i: string;
}

const decodeCursor = (signer: typeof PageTokenSigner.Service, token: string, tenant: string, filterKey: string) => {
  const payload = signer.verify(token);
  if (payload === undefined) return undefined;
  try {
    const parsed = JSON.parse(payload) as TokenPayload;
    if (parsed.t !== tenant || parsed.f !== filterKey || typeof parsed.c !== "number" || typeof parsed.i !== "string")
      return undefined;
    return { createdAt: new Date(parsed.c), id: parsed.i } satisfies ProviderCursor;
  } catch {
    return undefined;
  }
};

/** One page of the providers the actor can see (own and PUBLIC), in creation order. */
export const listProvidersPage = (actor: Actor, query: ProviderListQuery) =>
  Effect.gen(function* () {
    const { problems, limit, filters, token } = parseQuery(query);
    const signer = yield* PageTokenSigner;
    const filterKey = JSON.stringify(filters);
    const after = token === undefined ? undefined : decodeCursor(signer, token, actor.tenant, filterKey);
    if (token !== undefined && after === undefined)
      problems.push({ path: "token", message: "is not a nextToken of this listing" });
    if (problems.length > 0) return yield* invalid(problems);
    // One extra row tells whether another page follows.
    const page = yield* read((tx) =>
      tx.searchProviders({ viewerTenant: actor.tenant, ...filters, after, limit: limit + 1 }),
    );
    const items = page.items.slice(0, limit);
    const last = items.at(-1);
    const nextToken =
      page.items.length > limit && last !== undefined
        ? signer.sign(
            JSON.stringify({
              t: actor.tenant,
              f: filterKey,
              c: last.provider.createdAt.getTime(),
              i: last.provider.id,
            } satisfies TokenPayload),
          )
        : "";
    return {
      providers: items.map((item) => toProviderRecord(item.provider, item.tools)),
      matchCount: page.matchCount,
      nextToken,
    } satisfies ProviderListPage;
  });
