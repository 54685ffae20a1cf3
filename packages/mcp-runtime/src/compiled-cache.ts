import type { Unavailable } from "@mcpsm/domain/errors";
import { loadMcpServerView, mcpServerRevision } from "@mcpsm/domain/mcp";
import { isId } from "@mcpsm/domain/schemas";
import { Effect, Exit } from "effect";
import { type CompiledServer, compileServer } from "./compiled-server.js";
import type { EffectRunner } from "./mcp-server.js";

/** A compiled server, undefined when it does not exist; fails with the store's outage, dies with a defect. */
export type CacheLookup = Exit.Exit<CompiledServer | undefined, Unavailable>;

/**
 * Compiled servers keyed by server id, each valid for one revision. Every lookup reads the current revision
 * from the store (a point read of the server and its providers) and recompiles only when it moved, so a
 * change made through any instance is served by every instance on its next request. Bounded (least
 * recently used out); concurrent loads of one server share one read. Failures are returned as they are (an
 * outage stays Unavailable, a bug stays a defect), never thrown.
 */
export class CompiledServerCache {
  private readonly entries = new Map<string, CompiledServer>();
  private readonly loading = new Map<string, Promise<CacheLookup>>();
  /** How many times a server was compiled (tests and metrics). */
  compiles = 0;

  constructor(
    private readonly runner: EffectRunner,
    private readonly maxEntries = 1_000,
  ) {}

  /** The compiled server as of now (undefined when it does not exist). */
  async current(serverId: string): Promise<CacheLookup> {
    if (!isId(serverId)) return Exit.succeed(undefined);
    const cached = this.entries.get(serverId);
    if (cached !== undefined) {
      const exit = await this.runner.runPromiseExit(mcpServerRevision(serverId, cached.dependencyProviderIds));
      if (Exit.isFailure(exit)) return Exit.failCause(exit.cause);
      if (exit.value === undefined) {
        this.entries.delete(serverId);
        return Exit.succeed(undefined);
      }
      if (exit.value.revision === cached.revision) {
        this.entries.delete(serverId);
        this.entries.set(serverId, cached);
        return Exit.succeed(cached);
      }
    }
    return this.load(serverId);
  }

  private load(serverId: string): Promise<CacheLookup> {
    const pending = this.loading.get(serverId);
    if (pending !== undefined) return pending;
    const promise = this.runner
      .runPromiseExit(
        Effect.map(loadMcpServerView(serverId), (view) => {
          if (view === undefined) {
            this.entries.delete(serverId);
            return undefined;
          }
          const compiled = compileServer(view);
          this.compiles++;
          this.entries.delete(serverId);
          this.entries.set(serverId, compiled);
          while (this.entries.size > this.maxEntries) this.entries.delete(this.entries.keys().next().value as string);
          return compiled;
        }),
      )
      .finally(() => this.loading.delete(serverId));
    this.loading.set(serverId, promise);
    return promise;
  }

  get size(): number {
    return this.entries.size;
  }
}
