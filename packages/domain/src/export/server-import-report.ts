import type { ServerRecord } from "../server/server-schema.js";
import type { ImportedServer, ServerImportReport } from "./export-schema.js";

// The answer of a server import: its report, and a dry run's server without the ids it never stored.

/** A report being filled in. */
export type Mutable<T> = { -readonly [K in keyof T]: T[K] extends ReadonlyArray<infer E> ? Array<E> : Mutable<T[K]> };

/** A report with nothing in it yet. */
export const emptyReport = (): Mutable<ServerImportReport> => ({
  providers: { reused: [], created: [] },
  tools: { matched: [], created: [] },
  prompts: { matched: [], created: [] },
  resources: { matched: [], created: [] },
  missingVariables: [],
  warnings: [],
});

/** A dry run's server: records it would create have no ids (they are never stored). */
export const withoutNewIds = (record: ServerRecord, newIds: ReadonlySet<string>): ImportedServer => {
  const strip = <T extends { readonly id: string; readonly providerID?: string }>(item: T) => {
    const { id, providerID, ...rest } = item;
    return {
      ...rest,
      ...(newIds.has(id) ? {} : { id }),
      ...(providerID === undefined || newIds.has(providerID) ? {} : { providerID }),
    };
  };
  const { id, providers, resources, prompts, ...rest } = record;
  return {
    ...rest,
    ...(newIds.has(id) ? {} : { id }),
    providers: providers.map(({ id: providerId, tools, ...fields }) => ({
      ...fields,
      ...(newIds.has(providerId) ? {} : { id: providerId }),
      tools: tools.map(strip),
    })),
    resources: resources.map(strip),
    prompts: prompts.map(strip),
  };
};
