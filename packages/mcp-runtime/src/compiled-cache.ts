import { hash } from "node:crypto";
import type { Unavailable } from "@mcpsm/domain/errors";
import { loadMcpServerView, mcpServerRevision } from "@mcpsm/domain/mcp";
import { isId } from "@mcpsm/domain/schemas";
import type { Storage } from "@mcpsm/domain/storage";
import type { SecretCipher } from "@mcpsm/domain/use-cases";
import { Effect, Exit } from "effect";
import { type CompiledServer, type CompiledTool, compileServer, type ToolSet } from "./compiled-server.js";
import { InternTable } from "./intern-table.js";
import type { EffectRunner } from "@mcpsm/upstream-http";

/** A compiled server, undefined when it does not exist; fails with the store's outage, dies with a defect. */
export type CacheLookup = Exit.Exit<CompiledServer | undefined, Unavailable>;

/** The default memory budget of the compiled-server cache (config.ts: MCP_COMPILED_CACHE_MIB). */
export const DEFAULT_COMPILED_CACHE_BYTES = 128 * 1024 * 1024;

/** Loads (a read of a server's graph, then its compile) run at once at most; more wait their turn. */
export const MAX_CONCURRENT_LOADS = 4;

/** The estimated bytes of a compiled server without its tools and tool set (shared, counted by their tables). */
const ownBytesOf = (compiled: CompiledServer): number =>
  // The record, its lookup maps and lists (a slot per prompt and resource), and the prompts' and resources'
  // rows (~3× their JSON).
  2_048 +
  64 * (compiled.prompts.size + compiled.resources.size) +
  3 * (JSON.stringify(compiled.promptList).length + JSON.stringify([...compiled.prompts.values()]).length) +
  3 * JSON.stringify(compiled.resourceList).length;

/**
 * An estimate of the memory a compiled tool holds: its served definition and its stored row, as JSON
 * characters, times what a parsed JSON object costs over its text (~3×, measured on V8 for schema-shaped
 * objects), plus the fixed cost of the records themselves.
 */
const toolBytesOf = (tool: CompiledTool): number => {
  const { row, definition } = tool;
  const chars =
    JSON.stringify(definition).length +
    JSON.stringify(row.pathArgsJSONSchema ?? null).length +
    JSON.stringify(row.queryArgsJSONSchema ?? null).length +
    JSON.stringify(row.reqBodyJSONSchema ?? null).length +
    JSON.stringify(row.respBodyJSONSchema ?? null).length;
  return 1_024 + 3 * chars;
};

/** A tool set's lookup map and list: a slot in each per tool (its search index, once built, is not counted). */
const toolSetBytesOf = (set: ToolSet): number => 512 + 64 * set.tools.size;

interface Slot {
  readonly compiled: CompiledServer;
  /** Its own estimated bytes, plus what was charged to it since (`charge`). */
  bytes: number;
  /** The shared answers it holds (`share`), each once: counted in `sharedBytes` while anyone holds them. */
  shared: Set<SharedAnswer> | undefined;
}

/** Bytes derived from compiled servers that are the same for many of them (a tools/list answer). */
interface SharedAnswer {
  readonly digest: string;
  readonly bytes: Buffer;
  /** The kept servers that hold it. */
  holders: number;
}

/**
 * Compiled servers keyed by server id, each valid for one revision. Every lookup reads the current revision
 * from the store (a point read of the server and its providers) and recompiles only when it moved, so a
 * change made through any instance is served by every instance on its next request. Bounded by memory: an
 * estimate of each server's own bytes plus those of the distinct tools the kept servers serve (interned,
 * intern-table.ts), of their distinct tool sets and of the distinct answers they keep (`share`) stays within `budgetBytes`, least
 * recently used out. Concurrent loads of one server share one read and one compile, and at most
 * MAX_CONCURRENT_LOADS loads run at once (a restart's first requests to many servers queue rather than read
 * every graph together). Failures are returned as they are (an outage stays Unavailable, a bug stays a
 * defect), never thrown.
 */
export class CompiledServerCache {
  private readonly entries = new Map<string, Slot>();
  private readonly loading = new Map<string, Promise<CacheLookup>>();
  private readonly tools = new InternTable<CompiledTool>(toolBytesOf);
  private readonly toolSets = new InternTable<ToolSet>(toolSetBytesOf);
  private readonly answers = new Map<string, SharedAnswer>();
  /** The bytes of the shared answers held by at least one kept server, each counted once. */
  private sharedBytes = 0;
  private readonly waiting: Array<() => void> = [];
  private running = 0;
  private ownBytes = 0;
  /** How many times a server was compiled (tests and metrics). */
  compiles = 0;

  constructor(
    private readonly runner: EffectRunner,
    private readonly budgetBytes = DEFAULT_COMPILED_CACHE_BYTES,
  ) {}

  /** The compiled server as of now (undefined when it does not exist). */
  async current(serverId: string): Promise<CacheLookup> {
    if (!isId(serverId)) return Exit.succeed(undefined);
    const cached = this.entries.get(serverId)?.compiled;
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
    const cached = isId(serverId) ? this.entries.get(serverId)?.compiled : undefined;
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
   * Whether `compiled` is still the kept copy of its server (then marked most recently used): what was
   * derived from it may be served only while the budget still counts it.
   */
  keeps(compiled: CompiledServer): boolean {
    const slot = this.entries.get(compiled.id);
    if (slot === undefined || slot.compiled !== compiled) return false;
    this.entries.delete(compiled.id);
    this.entries.set(compiled.id, slot);
    return true;
  }

  /**
   * Counts `bytes` more against `compiled` while it is kept (what is derived from it and lives as long:
   * the fast lane's learnt tools/list answers); nothing when it is no longer the kept copy.
   */
  charge(compiled: CompiledServer, bytes: number): void {
    const slot = this.entries.get(compiled.id);
    if (slot === undefined || slot.compiled !== compiled) return;
    slot.bytes += bytes;
    this.ownBytes += bytes;
    this.evict();
  }

  /**
   * `bytes` derived from `compiled` and kept as long as it is (the fast lane's learnt tools/list answer),
   * interned by content: servers of the same tools answer a tools/list with the same bytes, and 10,000 of
   * them hold one copy, counted once against the budget while any kept server holds it. Returns the copy to
   * keep (the one already held by another server when equal); `bytes` itself, uncounted, when `compiled` is
   * no longer the kept copy (it goes with it).
   */
  share(compiled: CompiledServer, bytes: Buffer): Buffer {
    const slot = this.entries.get(compiled.id);
    if (slot === undefined || slot.compiled !== compiled) return bytes;
    const digest = hash("sha256", bytes, "base64");
    let answer = this.answers.get(digest);
    if (answer === undefined) {
      answer = { digest, bytes, holders: 0 };
      this.answers.set(digest, answer);
    }
    slot.shared ??= new Set();
    if (!slot.shared.has(answer)) {
      slot.shared.add(answer);
      if (answer.holders++ === 0) this.sharedBytes += answer.bytes.length;
      this.evict();
    }
    return answer.bytes;
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
      this.remove(serverId);
      return Exit.succeed(undefined);
    }
    if (now.revision !== cached.revision) return this.load(serverId);
    const slot = this.entries.get(serverId);
    if (slot !== undefined) {
      this.entries.delete(serverId);
      this.entries.set(serverId, slot);
    }
    return Exit.succeed(cached);
  }

  private load(serverId: string): Promise<CacheLookup> {
    const pending = this.loading.get(serverId);
    if (pending !== undefined) return pending;
    const promise = this.turn()
      .then(() =>
        this.runner.runPromiseExit(
          Effect.map(loadMcpServerView(serverId), (view) => {
            if (view === undefined) {
              this.remove(serverId);
              return undefined;
            }
            const interned: Array<CompiledTool> = [];
            const internedSets: Array<ToolSet> = [];
            try {
              const compiled = compileServer(view, {
                tool: (key, make) => {
                  const tool = this.tools.intern(key, make);
                  interned.push(tool);
                  return tool;
                },
                toolSet: (key, make) => {
                  const set = this.toolSets.intern(key, make);
                  internedSets.push(set);
                  return set;
                },
              });
              this.compiles++;
              this.keep(serverId, compiled);
              return compiled;
            } finally {
              // A compile that failed half way leaves nothing that nobody holds.
              this.tools.dropUnheld(interned);
              this.toolSets.dropUnheld(internedSets);
            }
          }),
        ),
      )
      .finally(() => {
        this.loading.delete(serverId);
        this.next();
      });
    this.loading.set(serverId, promise);
    return promise;
  }

  /** Resolves when a load may start (fewer than MAX_CONCURRENT_LOADS running); `next` ends it. */
  private turn(): Promise<void> {
    if (this.running < MAX_CONCURRENT_LOADS) {
      this.running++;
      return Promise.resolve();
    }
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  /** A load ended: the next waiting one takes its turn. */
  private next(): void {
    const waiter = this.waiting.shift();
    if (waiter !== undefined) waiter();
    else this.running--;
  }

  private keep(serverId: string, compiled: CompiledServer): void {
    // Held before the former copy lets go: the tools both serve stay interned.
    for (const tool of compiled.tools.values()) this.tools.hold(tool);
    this.toolSets.hold(compiled.toolSet);
    this.remove(serverId);
    const slot: Slot = { compiled, bytes: ownBytesOf(compiled), shared: undefined };
    this.entries.set(serverId, slot);
    this.ownBytes += slot.bytes;
    this.evict();
  }

  private remove(serverId: string): void {
    const slot = this.entries.get(serverId);
    if (slot === undefined) return;
    this.entries.delete(serverId);
    this.ownBytes -= slot.bytes;
    for (const tool of slot.compiled.tools.values()) this.tools.release(tool);
    this.toolSets.release(slot.compiled.toolSet);
    for (const answer of slot.shared ?? []) {
      if (--answer.holders > 0) continue;
      this.sharedBytes -= answer.bytes.length;
      this.answers.delete(answer.digest);
    }
  }

  /** Least recently used out until within the budget; the newest entry stays, whatever its size. */
  private evict(): void {
    while (this.bytes > this.budgetBytes && this.entries.size > 1)
      this.remove(this.entries.keys().next().value as string);
  }

  /** How many servers are kept. */
  get size(): number {
    return this.entries.size;
  }

  /** The estimated bytes kept: the servers' own, their distinct tools', tool sets' and shared answers'. */
  get bytes(): number {
    return this.ownBytes + this.tools.heldBytes + this.toolSets.heldBytes + this.sharedBytes;
  }

  /** How many distinct shared answers the kept servers hold. */
  get sharedCount(): number {
    return this.answers.size;
  }

  /** How many distinct tool sets the kept servers serve (one for every server serving the same tools alike). */
  get toolSetCount(): number {
    return this.toolSets.size;
  }

  /** How many distinct compiled tools the kept servers serve. */
  get toolCount(): number {
    return this.tools.size;
  }
}
