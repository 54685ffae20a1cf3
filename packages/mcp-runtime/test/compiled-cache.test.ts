import * as W from "@mcpsm/domain/schemas";
import * as U from "@mcpsm/domain/use-cases";
import { Effect, Exit } from "effect";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CompiledServerCache, type CompiledServer } from "../src/index.js";
import { MAX_CONCURRENT_LOADS } from "../src/compiled-cache.js";
import { buildFixture } from "./support/fixture.js";
import { actorOf, makeServices, type Services, startMcp } from "./support/harness.js";
import { postJson } from "./support/raw-exchange.js";
import { startUpstream, type Upstream } from "./support/upstream.js";

// The compiled-server cache at many servers (issue 32): tools and tools/list answers shared between servers, a
// memory budget, one compile per cold server however many ask at once, and a bounded number of loads at a time.

let services: Services;
let upstream: Upstream;
let fixture: Awaited<ReturnType<typeof buildFixture>>;

beforeAll(async () => {
  services = makeServices();
  upstream = await startUpstream();
  fixture = await buildFixture(services, upstream);
});

afterAll(async () => {
  await upstream?.close();
  await services?.dispose();
});

const META = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientInfo": { name: "test", version: "1" },
  "io.modelcontextprotocol/clientCapabilities": {},
};

const compiledOf = async (cache: CompiledServerCache, serverId: string): Promise<CompiledServer> => {
  const exit = await cache.current(serverId);
  if (Exit.isFailure(exit) || exit.value === undefined) throw new Error(`server ${serverId} did not compile`);
  return exit.value;
};

/** `count` servers of the fixture's provider (every tool), named `prefix n`. */
const serversOf = async (prefix: string, count: number): Promise<Array<string>> => {
  const ids: Array<string> = [];
  for (let n = 0; n < count; n++)
    ids.push((await fixture.m.server({ name: `${prefix} ${n}`, providers: [{ id: fixture.provider.id }] })).id);
  return ids;
};

const renameTool = (serverId: string, toolId: string, alias: string) =>
  services.runPromise(
    Effect.flatMap(W.decodeServerToolSettingsPatch({ tool: { alias } }), (tool) =>
      U.updateServerTool(actorOf("acme"), { serverId, toolId, tool }),
    ) as never,
  );

describe("compiled tools shared between servers", () => {
  it("serves one compiled tool to every server that serves it alike, and a change to every server", async () => {
    const [a, b, renamed] = await serversOf("Sharing", 3);
    await renameTool(renamed as string, fixture.tools.getItem.id, "readItem");
    const cache = new CompiledServerCache(services);
    const [first, second, third] = [
      await compiledOf(cache, a as string),
      await compiledOf(cache, b as string),
      await compiledOf(cache, renamed as string),
    ];
    const toolCount = first.tools.size;
    expect(second.tools.get("getItem")).toBe(first.tools.get("getItem"));
    expect(second.tools.get("createItem")).toBe(first.tools.get("createItem"));
    // A server's own settings make a tool of its own; the others stay shared.
    expect(third.tools.get("readItem")?.definition.name).toBe("readItem");
    expect(third.tools.has("getItem")).toBe(false);
    expect(third.tools.get("createItem")).toBe(first.tools.get("createItem"));
    expect(cache.toolCount).toBe(toolCount + 1);
    expect(cache.compiles).toBe(3);
    // Servers of the same tools share one tool set: its lookup map, list and search index.
    expect(second.toolSet).toBe(first.toolSet);
    expect(second.tools).toBe(first.tools);
    expect(second.toolList).toBe(first.toolList);
    expect(second.toolIndex()).toBe(first.toolIndex());
    expect(third.toolSet).not.toBe(first.toolSet);
    expect(cache.toolSetCount).toBe(2);

    await fixture.m.updateTool(fixture.provider.id, fixture.tools.getItem.id, { description: "Reads one, shared" });
    const [after, afterSecond, afterThird] = [
      await compiledOf(cache, a as string),
      await compiledOf(cache, b as string),
      await compiledOf(cache, renamed as string),
    ];
    for (const compiled of [after, afterSecond])
      expect(compiled.tools.get("getItem")?.definition.description).toBe("Reads one, shared");
    expect(afterThird.tools.get("readItem")?.definition.description).toBe("Reads one, shared");
    expect(afterSecond.tools.get("getItem")).toBe(after.tools.get("getItem"));
    expect(after.tools.get("getItem")).not.toBe(first.tools.get("getItem"));
    // The former tools went with the servers that served them: as many distinct tools as before.
    expect(cache.toolCount).toBe(toolCount + 1);
    expect(afterSecond.toolSet).toBe(after.toolSet);
    expect(after.toolSet).not.toBe(first.toolSet);
    expect(cache.toolSetCount).toBe(2);
    expect(cache.compiles).toBe(6);
  });
});

describe("the memory budget", () => {
  it("keeps servers within its budget, least recently used out, and the tools of those kept", async () => {
    const ids = await serversOf("Budget", 6);
    const probe = new CompiledServerCache(services);
    await compiledOf(probe, ids[0] as string);
    const one = probe.bytes;
    await compiledOf(probe, ids[1] as string);
    // A second server of the same tools costs only its own part.
    const second = probe.bytes - one;
    expect(second).toBeLessThan(one / 4);

    const budget = one + 2 * second;
    const cache = new CompiledServerCache(services, budget);
    for (const id of ids) await compiledOf(cache, id);
    expect(cache.size).toBe(3);
    expect(cache.bytes).toBeLessThanOrEqual(budget);
    const compiles = cache.compiles;
    for (const id of ids.slice(3)) await compiledOf(cache, id);
    expect(cache.compiles).toBe(compiles);
    await compiledOf(cache, ids[0] as string);
    expect(cache.compiles).toBe(compiles + 1);
  });

  it("counts what is charged to a kept server, and evicts for it", async () => {
    const ids = await serversOf("Charged", 2);
    const cache = new CompiledServerCache(services, 1024 * 1024);
    const kept = await compiledOf(cache, ids[0] as string);
    await compiledOf(cache, ids[1] as string);
    expect(cache.size).toBe(2);
    const before = cache.bytes;
    cache.charge(kept, 1000);
    expect(cache.bytes).toBe(before + 1000);
    // Over the budget: the least recently used goes (the charged one, compiled first), its bytes with it.
    cache.charge(kept, 2 * 1024 * 1024);
    expect(cache.size).toBe(1);
    expect(cache.bytes).toBeLessThan(before);
    // A copy no longer kept is charged nothing.
    cache.charge(kept, 1000);
    expect(cache.size).toBe(1);
  });
});

describe("cold servers", () => {
  it("compiles a cold server once however many ask for it at once", async () => {
    const [id] = await serversOf("Cold", 1);
    const cache = new CompiledServerCache(services);
    const answers = await Promise.all(Array.from({ length: 32 }, () => compiledOf(cache, id as string)));
    expect(cache.compiles).toBe(1);
    for (const answer of answers) expect(answer).toBe(answers[0]);
  });

  it("loads at most MAX_CONCURRENT_LOADS servers at a time, and every one in the end", async () => {
    const ids = await serversOf("Restart", 16);
    let running = 0;
    let peak = 0;
    const counting = {
      runPromiseExit: async <A, E>(effect: Effect.Effect<A, E, never>) => {
        running++;
        peak = Math.max(peak, running);
        try {
          // Each load holds its turn past the current macrotask: every load that may start has started.
          await new Promise((resolve) => setImmediate(resolve));
          return await services.runPromiseExit(effect);
        } finally {
          running--;
        }
      },
    } as ConstructorParameters<typeof CompiledServerCache>[0];
    const cache = new CompiledServerCache(counting);
    const compiled = await Promise.all(ids.map((id) => compiledOf(cache, id)));
    expect(compiled.map((c) => c.id)).toEqual(ids);
    expect(cache.compiles).toBe(ids.length);
    expect(peak).toBe(MAX_CONCURRENT_LOADS);
    // The 16 servers share their tools: one compiled tool each.
    expect(cache.toolCount).toBe(compiled[0]?.tools.size);
  });
});

describe("answers shared between servers", () => {
  it("keeps one copy of equal bytes for every server, counted once, and lets it go with its last holder", async () => {
    const [a, b, c] = await serversOf("Answers", 3);
    const cache = new CompiledServerCache(services, 1024 * 1024);
    const first = await compiledOf(cache, a as string);
    const second = await compiledOf(cache, b as string);
    const before = cache.bytes;
    const answer = Buffer.alloc(10_000, "x");
    expect(cache.share(first, answer)).toBe(answer);
    expect(cache.bytes).toBe(before + 10_000);
    // Equal bytes from another server (or the same one again) are the copy already kept, counted once.
    expect(cache.share(second, Buffer.from(answer))).toBe(answer);
    expect(cache.share(first, Buffer.from(answer))).toBe(answer);
    expect(cache.bytes).toBe(before + 10_000);
    expect(cache.sharedCount).toBe(1);
    const other = Buffer.alloc(10_000, "y");
    expect(cache.share(second, other)).toBe(other);
    expect(cache.bytes).toBe(before + 20_000);

    // `first` goes (least recently used): `second` still holds both answers.
    cache.charge(first, 2 * 1024 * 1024);
    expect(cache.size).toBe(1);
    expect(cache.sharedCount).toBe(2);
    // A copy no longer kept shares nothing: it gets its own bytes back, uncounted.
    const unkept = Buffer.from(answer);
    expect(cache.share(first, unkept)).toBe(unkept);
    // `second` goes too: nothing holds either answer any more.
    await compiledOf(cache, c as string);
    cache.charge(second, 2 * 1024 * 1024);
    expect(cache.size).toBe(1);
    expect(cache.sharedCount).toBe(0);
  });

  it("servers of the same tools answer tools/list from one kept copy of their tools, in both eras", async () => {
    const mcp = await startMcp(services, { upstreamAllowedNetworks: ["127.0.0.0/8"] });
    try {
      for (const [n, era] of [
        [1, "2026-07-28"],
        [2, "2026-07-28"],
        [3, "2026-07-28"],
        [4, "2025-11-25"],
        [5, "2025-11-25"],
      ] as const) {
        const name = `Listed ${n}`;
        const server = await fixture.m.server({ name, providers: [{ id: fixture.provider.id }] });
        const token = await fixture.m.token(server.id);
        const bodies: Array<string> = [];
        for (let round = 0; round < 2; round++) {
          const answer = await postJson(
            `${mcp.url}/mcp/${server.id}`,
            era === "2026-07-28"
              ? {
                  Authorization: `Bearer ${token.value}`,
                  "MCP-Protocol-Version": era,
                  "Mcp-Method": "tools/list",
                }
              : {
                  Authorization: `Bearer ${token.value}`,
                  "MCP-Protocol-Version": era,
                  Accept: "application/json, text/event-stream",
                },
            { jsonrpc: "2.0", id: 7, method: "tools/list", params: era === "2026-07-28" ? { _meta: META } : {} },
          );
          expect(answer.status).toBe(200);
          bodies.push(answer.body);
        }
        // The second answer came from the lane's kept parts: the same bytes as the first, the server's own
        // name in a 2026-07-28 answer.
        expect(bodies[1]).toBe(bodies[0]);
        if (era === "2026-07-28") expect(bodies[0]).toContain(`"name":"${name}"`);
        expect(bodies[0]).toContain('"tools":[');
      }
      expect(mcp.runtime.cache.size).toBe(5);
      // One list of tools per era, however many servers.
      expect(mcp.runtime.cache.sharedCount).toBe(2);
      expect(mcp.runtime.fastLaneAnswers()).toBe(10);
    } finally {
      await mcp.close();
    }
  });
});
