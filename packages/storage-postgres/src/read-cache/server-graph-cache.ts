import type { ServerGraph } from "@mcpsm/domain/storage";
import { Context } from "effect";

/**
 * The store's own read cache as far as a server's graph goes, beside the storage port (not part of it: a cache
 * is this adapter's concern, not the domain's). Present in the adapter's layer when its read cache is on.
 */
export class ServerGraphCache extends Context.Tag("@mcpsm/storage-postgres/ServerGraphCache")<
  ServerGraphCache,
  {
    /**
     * The graph of server `id` as the read cache holds it now: the very object `findServerGraph` of a `read`
     * would answer with, while it would; undefined when no current entry is held. Lets callers keep what they
     * derive from a graph for exactly as long as the cache serves that graph.
     */
    readonly cachedServerGraph: (id: string) => ServerGraph | undefined;
  }
>() {}
