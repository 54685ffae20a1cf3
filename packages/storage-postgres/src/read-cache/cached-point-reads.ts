import type { ServerGraph, StorageTx } from "@mcpsm/domain/storage";
import { Effect, Exit, Runtime } from "effect";
import type { PointReadCache } from "./point-read-cache.js";

// The reads every management GET of a server and every MCP request make, outside transactions: a server
// (its revision), a server's graph (the management answer and the compiled MCP server), a provider (the
// revision of a served server), a server token by hash (MCP authentication), and the variables a tool's
// headers name (every call of such a tool: SECRET values stay encrypted in the rows kept), and a caller's own
// values of those that are per caller (every call of such a tool, docs/api-rules.md §23). Inside a
// transaction nothing is cached: a write reads what it locks.

/**
 * `read()`, or the cached answer of `key` when the cache has a current one. Concurrent misses of one key in
 * one generation share one read (when an entry expires under load, the requests in flight would otherwise
 * all go to the database at once); a request that starts after a change never joins a read begun before it.
 * The shared read runs detached from the fibers waiting for it, so one caller giving up does not fail the
 * others; the statement timeout bounds it.
 */
const cached = <A>(
  cache: PointReadCache,
  key: string,
  read: () => Effect.Effect<A>,
  keep: (value: A) => boolean,
  weigh: (value: A) => number = one,
  share?: (value: A, generation: number) => A,
) =>
  Effect.suspend(() => {
    const hit = cache.lookup(key);
    if (hit.found) return Effect.succeed(hit.value as A);
    // The shared read runs with the fiber refs of the caller that starts it (its statement observer: the
    // statements show in that request's trace), in a fiber of its own.
    return Effect.flatMap(Effect.runtime<never>(), (runtime) =>
      Effect.suspend(() => {
        const generation = cache.current;
        const flightKey = `${generation}:${key}`;
        let flight = cache.readsInFlight.get(flightKey) as Promise<Exit.Exit<A>> | undefined;
        if (flight === undefined) {
          const startedAt = performance.now();
          flight = Runtime.runPromiseExit(runtime)(read()).then((exit) => {
            cache.readsInFlight.delete(flightKey);
            if (!Exit.isSuccess(exit) || !keep(exit.value)) return exit;
            // What is kept and what the readers get is one object (cachedServerGraph peeks at it).
            const value = share === undefined ? exit.value : share(exit.value, generation);
            cache.store(key, value, generation, startedAt, weigh(value));
            return value === exit.value ? exit : Exit.succeed(value);
          });
          cache.readsInFlight.set(flightKey, flight);
        }
        const shared = flight;
        return Effect.flatten(Effect.promise(() => shared));
      }),
    );
  });

const one = () => 1;

/** A server's graph weighs its rows: at 50 tools it holds as much as 50 server rows. */
const graphWeight = (graph: ServerGraph | undefined): number =>
  graph === undefined
    ? 1
    : 1 + graph.providers.length + graph.tools.length + graph.prompts.length + graph.resources.length;

/**
 * A graph whose provider, tool, resource and prompt rows are the ones the cache's other graphs of the same
 * generation already hold when equal (PointReadCache.shared): at 10,000 servers of the same 50 tools the
 * ~700 graphs kept held 35,000 copies of 50 rows (docs/performance.md, stop 33).
 */
const sharedRows =
  (cache: PointReadCache) =>
  (graph: ServerGraph | undefined, generation: number): ServerGraph | undefined => {
    if (graph === undefined) return graph;
    const share =
      (kind: string) =>
      <R extends { readonly id: string }>(row: R) =>
        cache.shared(kind, row, generation);
    return {
      ...graph,
      providers: graph.providers.map(share("provider")),
      tools: graph.tools.map(share("tool")),
      resources: graph.resources.map(share("resource")),
      prompts: graph.prompts.map(share("prompt")),
    };
  };

/** Only what exists is kept: made-up ids and tokens must not push real entries out. */
const found = (value: unknown) => value !== undefined;

/** The cache key of a server's graph (also what `cachedServerGraph` of the storage peeks at). */
export const serverGraphKey = (id: string) => `server-graph:${id}`;

/** `tx` (of a `read`) with its hot point reads answered from `cache` when it holds a current answer. */
export const withCachedPointReads = (tx: StorageTx, cache: PointReadCache): StorageTx => ({
  ...tx,
  findServer: (id) => cached(cache, `server:${id}`, () => tx.findServer(id), found),
  findServerGraph: (id) =>
    cached(cache, serverGraphKey(id), () => tx.findServerGraph(id), found, graphWeight, sharedRows(cache)),
  findProvider: (id) => cached(cache, `provider:${id}`, () => tx.findProvider(id), found),
  findServerTokenByHash: (hash) => cached(cache, `server-token:${hash}`, () => tx.findServerTokenByHash(hash), found),
  // Names come from the headers of stored tools, not from callers: an answer with none found is kept too.
  findVariablesByName: (tenant, names) =>
    cached(
      cache,
      `variables:${tenant}\u0000${names.join("\u0000")}`,
      () => tx.findVariablesByName(tenant, names),
      always,
    ),
  // The principal is the authenticated caller's, never a value a request names: an answer with none is kept
  // too (the caller uses the default, or is asked for a value, which a committed change then makes visible).
  findCallerValues: (variableIds, principal) =>
    cached(
      cache,
      `caller-values:${principal}\u0000${variableIds.join("\u0000")}`,
      () => tx.findCallerValues(variableIds, principal),
      always,
    ),
});

const always = () => true;
