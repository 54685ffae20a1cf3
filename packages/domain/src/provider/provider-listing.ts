import { Effect, Schema } from "effect";
import { pageLimit, readKeysetPage } from "../listing/keyset-page.js";
import type { ProviderWithTools } from "../storage/rows.js";
import type { Actor } from "../tenancy/actor.js";
import { read } from "../use-case/use-case-kit.js";
import { validateInput } from "../validation/validate-input.js";
import { toProviderRecord } from "./provider-record.js";
import { ProviderListParameters, type ProviderListQuery, type ProviderRecord } from "./provider-schema.js";

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
    const filters = {
      nameContains: nonEmpty(query.nameContains),
      baseURLContains: nonEmpty(query.baseURLContains),
      apiType: query.apiType,
      visibility: query.visibility,
    };
    const listing = {
      tenant: actor.tenant,
      filterKey: JSON.stringify(filters),
      timeKey: "c",
      limit: pageLimit(query.limit),
      token: query.token,
      cursorOf: ({ provider }: ProviderWithTools) => ({ at: provider.createdAt, id: provider.id }),
    };
    const page = yield* readKeysetPage(listing, (cursor, limit) => {
      const after = cursor === undefined ? undefined : { createdAt: cursor.at, id: cursor.id };
      return read((tx) => tx.searchProviders({ viewerTenant: actor.tenant, ...filters, after, limit }));
    });
    const { matchCount, nextToken } = page;
    const providers = page.items.map((item) => toProviderRecord(item.provider, item.tools));
    return { providers, matchCount, nextToken } satisfies ProviderListPage;
  });
