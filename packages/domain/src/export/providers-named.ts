import { Effect } from "effect";
import type { ProviderRow } from "../storage/rows.js";
import type { ReadTx } from "../storage/storage-port.js";
import type { Actor } from "../tenancy/actor.js";

/** A provider the actor can see with this name: its own first, then PUBLIC ones of other tenants, oldest first. */
export const providersNamed = (tx: ReadTx, actor: Actor, name: string) =>
  Effect.gen(function* () {
    const found: Array<ProviderRow> = [];
    let after: { createdAt: Date; id: string } | undefined;
    // Names are unique per tenant: few providers carry this exact name, however many contain it.
    for (let page = 0; page < 100; page++) {
      const result = yield* tx.searchProviders({ viewerTenant: actor.tenant, nameContains: name, after, limit: 1000 });
      found.push(...result.items.map((item) => item.provider).filter((p) => p.name === name));
      const last = result.items.at(-1)?.provider;
      if (last === undefined || result.items.length < 1000) break;
      after = { createdAt: last.createdAt, id: last.id };
    }
    return [...found.filter((p) => p.tenant === actor.tenant), ...found.filter((p) => p.tenant !== actor.tenant)];
  });
