import type { Unavailable } from "@mcpsm/domain/errors";
import { loadMcpServerView, mcpServerRevision } from "@mcpsm/domain/mcp";
import { isId } from "@mcpsm/domain/schemas";
import type { Storage } from "@mcpsm/domain/storage";
import type { SecretCipher } from "@mcpsm/domain/use-cases";
import { Effect, Exit } from "effect";
import { type CompiledServer, compileServer } from "./compiled-server.js";
import type { EffectRunner } from "@mcpsm/upstream-http";

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
    if (cached === undefined) return this.load(serverId);
    const exit = await this.runner.runPromiseExit(mcpServerRevision(serverId, cached.dependencyProviderIds));
    if (Exit.isFailure(exit)) return Exit.failCause(exit.cause);
    return this.settle(serverId, cached, exit.value);
  }

  /**
   * `first` (an authentication), then the compiled server as of now: one run of the effect runtime when the
   * server is compiled already (the revision check rides along), as `current` otherwise. Fails with `first`'s
   * failure before anything else is read.
   */
  async currentAfter<A, E>(
    serverId: string,
    first: Effect.Effect<A, E, Storage | SecretCipher>,
  ): Promise<Exit.Exit<readonly [A, CompiledServer | undefined], E | Unavailable>> {
    const cached = isId(serverId) ? this.entries.get(serverId) : undefined;
    if (cached === undefined) {
      const done = await this.runner.runPromiseExit(first);
      if (Exit.isFailure(done)) return Exit.failCause(done.cause);
      return Exit.map(await this.current(serverId), (compiled) => [done.value, compiled] as const);
    }
    const exit = await this.runner.runPromiseExit(
      Effect.zip(first, mcpServerRevision(serverId, cached.dependencyProviderIds)),
    );
    if (Exit.isFailure(exit)) return Exit.failCause(exit.cause);
    const [done, revision] = exit.value;
    return Exit.map(await this.settle(serverId, cached, revision), (compiled) => [done, compiled] as const);
  }

  /**
   * The lookup once the store said where `cached`'s server is now: gone, the same revision (used again,
   * most recently), or moved (compiled anew).
   */
  private settle(
    serverId: string,
    cached: CompiledServer,
    now: { readonly revision: string } | undefined,
  ): CacheLookup | Promise<CacheLookup> {
    if (now === undefined) {
      this.entries.delete(serverId);
      return Exit.succeed(undefined);
    }
    if (now.revision !== cached.revision) return this.load(serverId);
    this.entries.delete(serverId);
    this.entries.set(serverId, cached);
    return Exit.succeed(cached);
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
