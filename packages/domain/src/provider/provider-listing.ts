import { Effect, Schema } from "effect";
import { signPageCursor, verifyPageCursor } from "../listing/page-cursor.js";
import { PageTokenSigner } from "../secrets/page-token-signer.js";
import type { Actor } from "../tenancy/actor.js";
import { read } from "../use-case/use-case-kit.js";
import { invalid } from "../validation/decode-write.js";
import { validateInput } from "../validation/validate-input.js";
import { toProviderRecord } from "./provider-record.js";
import {
  DEFAULT_PAGE_SIZE,
  MAX_PAGE_SIZE,
  ProviderListParameters,
  type ProviderListQuery,
  type ProviderRecord,
} from "./provider-schema.js";

/** A page of providers as the API returns it. */
export interface ProviderListPage {
  readonly providers: ReadonlyArray<ProviderRecord>;
  readonly matchCount: number;
  /** Opaque token of the next page; "" on the last page. */
  readonly nextToken: string;
}

const nonEmpty = (value: string | undefined) => (value === "" ? undefined : value);

/** One page of the providers the actor can see (own and PUBLIC), in creation order. */
export const listProvidersPage = (actor: Actor, query: ProviderListQuery) =>
  Effect.gen(function* () {
    yield* validateInput("", Schema.typeSchema(ProviderListParameters), query);
    const limit = Math.min(query.limit ?? DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE);
    const token = nonEmpty(query.token);
    const filters = {
      nameContains: nonEmpty(query.nameContains),
      baseURLContains: nonEmpty(query.baseURLContains),
      apiType: query.apiType,
      visibility: query.visibility,
    };
    const signer = yield* PageTokenSigner;
    const filterKey = JSON.stringify(filters);
    const cursor = token === undefined ? undefined : verifyPageCursor(signer, token, actor.tenant, filterKey, "c");
    const after = cursor === undefined ? undefined : { createdAt: cursor.at, id: cursor.id };
    if (token !== undefined && after === undefined)
      return yield* invalid([{ path: "token", message: "is not a nextToken of this listing" }]);
    // One extra row tells whether another page follows.
    const page = yield* read((tx) =>
      tx.searchProviders({ viewerTenant: actor.tenant, ...filters, after, limit: limit + 1 }),
    );
    const items = page.items.slice(0, limit);
    const last = items.at(-1);
    const nextToken =
      page.items.length > limit && last !== undefined
        ? signPageCursor(signer, actor.tenant, filterKey, "c", { at: last.provider.createdAt, id: last.provider.id })
        : "";
    return {
      providers: items.map((item) => toProviderRecord(item.provider, item.tools)),
      matchCount: page.matchCount,
      nextToken,
    } satisfies ProviderListPage;
  });
