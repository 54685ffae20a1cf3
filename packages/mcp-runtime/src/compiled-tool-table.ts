import type { CompiledTool } from "./compiled-server.js";

// One compiled tool per (tool version, provider version, what the server changes about it), shared by every
// compiled server that serves it: 10,000 servers of the same 50 tools hold 50 definitions, not 500,000, and
// compile the 50 once. Held by the compiled-server cache: an entry lives while a cached server serves it
// (counted), so a changed or deleted tool goes when the last server that served it is recompiled or evicted.

interface Shared {
  readonly key: string;
  readonly tool: CompiledTool;
  /** The estimated bytes of what only this tool holds (its definition, its row's schemas). */
  readonly bytes: number;
  /** The cached servers that serve it. */
  holders: number;
}

/**
 * An estimate of the memory a compiled tool holds: its served definition and its stored row, as JSON
 * characters, times what a parsed JSON object costs over its text (~3×, measured on V8 for schema-shaped
 * objects), plus the fixed cost of the records themselves.
 */
const estimateBytes = (tool: CompiledTool): number => {
  const { row, definition } = tool;
  const chars =
    JSON.stringify(definition).length +
    JSON.stringify(row.pathArgsJSONSchema ?? null).length +
    JSON.stringify(row.queryArgsJSONSchema ?? null).length +
    JSON.stringify(row.reqBodyJSONSchema ?? null).length +
    JSON.stringify(row.respBodyJSONSchema ?? null).length;
  return 1_024 + 3 * chars;
};

/** Compiled tools interned by what makes them differ; see the top of this file. */
export class CompiledToolTable {
  private readonly byKey = new Map<string, Shared>();
  private readonly byTool = new WeakMap<CompiledTool, Shared>();
  /** The estimated bytes of every tool held by at least one cached server. */
  heldBytes = 0;

  /** The tool of `key`: the one already compiled, else `make`'s (kept once `hold` is called for it). */
  intern(key: string, make: () => CompiledTool): CompiledTool {
    const found = this.byKey.get(key);
    if (found !== undefined) return found.tool;
    const tool = make();
    const shared: Shared = { key, tool, bytes: estimateBytes(tool), holders: 0 };
    this.byKey.set(key, shared);
    this.byTool.set(tool, shared);
    return tool;
  }

  /** One more cached server serves `tool`; the bytes this adds to what the table holds (0 when shared). */
  hold(tool: CompiledTool): number {
    const shared = this.byTool.get(tool);
    if (shared === undefined) return 0;
    shared.holders++;
    if (shared.holders > 1) return 0;
    this.heldBytes += shared.bytes;
    // Interned again if it had been let go of meanwhile (and nothing newer took its key).
    if (!this.byKey.has(shared.key)) this.byKey.set(shared.key, shared);
    return shared.bytes;
  }

  /** A cached server that served `tool` is gone; the tool goes with the last one. */
  release(tool: CompiledTool): void {
    const shared = this.byTool.get(tool);
    if (shared === undefined || shared.holders === 0) return;
    shared.holders--;
    if (shared.holders > 0) return;
    this.heldBytes -= shared.bytes;
    this.forget(shared);
  }

  /** Drops the tools interned but never held (a compile whose server was not kept). */
  dropUnheld(tools: Iterable<CompiledTool>): void {
    for (const tool of tools) {
      const shared = this.byTool.get(tool);
      if (shared !== undefined && shared.holders === 0) this.forget(shared);
    }
  }

  private forget(shared: Shared): void {
    // A newer tool of the same key may have replaced it meanwhile: only its own entry is removed.
    if (this.byKey.get(shared.key) === shared) this.byKey.delete(shared.key);
  }

  /** How many distinct compiled tools are interned. */
  get size(): number {
    return this.byKey.size;
  }
}
