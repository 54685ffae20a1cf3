import { isId, loadMcpServerView, mcpServerRevision } from "@mcpsm/domain";
import { Exit } from "effect";
import { type CompiledServer, compileServer } from "./compiled-server.js";
import type { EffectRunner } from "./mcp-server.js";

/** The store could not be read. */
export class StoreUnavailable extends Error {
  constructor() {
    super("the store is unavailable");
    this.name = "StoreUnavailable";
  }
}

/**
 * Compiled servers keyed by server id, each valid for one revision. Every lookup reads the current revision
 * from the store (a point read of the server and its providers) and recompiles only when it moved, so a
 * change made through any instance is served by every instance on its next request. Bounded (least
 * recently used out); concurrent loads of one server share one read.
 */
export class CompiledServerCache {
  private readonly entries = new Map<string, CompiledServer>();
  private readonly loading = new Map<string, Promise<CompiledServer | undefined>>();
  /** How many times a server was compiled (tests and metrics). */
  compiles = 0;

  constructor(
    private readonly runner: EffectRunner,
    private readonly maxEntries = 1_000,
  ) {}

  /** The compiled server as of now, or undefined when it does not exist. Throws StoreUnavailable. */
  async current(serverId: string): Promise<CompiledServer | undefined> {
    if (!isId(serverId)) return undefined;
    const cached = this.entries.get(serverId);
    if (cached !== undefined) {
      const exit = await this.runner.runPromiseExit(mcpServerRevision(serverId, cached.dependencyProviderIds));
      if (Exit.isFailure(exit)) throw new StoreUnavailable();
      if (exit.value === undefined) {
        this.entries.delete(serverId);
        return undefined;
      }
      if (exit.value.revision === cached.revision) {
        this.entries.delete(serverId);
        this.entries.set(serverId, cached);
        return cached;
      }
    }
    return this.load(serverId);
  }

  private load(serverId: string): Promise<CompiledServer | undefined> {
    const pending = this.loading.get(serverId);
    if (pending !== undefined) return pending;
    const promise = (async () => {
      const exit = await this.runner.runPromiseExit(loadMcpServerView(serverId));
      if (Exit.isFailure(exit)) throw new StoreUnavailable();
      if (exit.value === undefined) {
        this.entries.delete(serverId);
        return undefined;
      }
      const compiled = compileServer(exit.value);
      this.compiles++;
      this.entries.delete(serverId);
      this.entries.set(serverId, compiled);
      while (this.entries.size > this.maxEntries) this.entries.delete(this.entries.keys().next().value as string);
      return compiled;
    })().finally(() => this.loading.delete(serverId));
    this.loading.set(serverId, promise);
    return promise;
  }

  get size(): number {
    return this.entries.size;
  }
}
