import { runInNewContext } from "node:vm";
import { setFlagsFromString } from "node:v8";
import type { Storage } from "@mcpsm/domain/storage";
import { Exit } from "effect";
import * as U from "@mcpsm/domain/use-cases";
import { makeMemoryStorage } from "@mcpsm/storage-memory";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { AdmissionMemo } from "../src/auth/admission-memo.js";
import { buildFixture } from "./support/fixture.js";
import { actorOf, makeServices, type RunningMcp, type Services, startMcp } from "./support/harness.js";
import { postJson } from "./support/raw-exchange.js";
import { startUpstream, type Upstream } from "./support/upstream.js";

// The gate's memo (auth/admission-memo.ts): a server-token request's admission is replayed, without reading
// the store, while the store's change stamp has not moved; a revoked token, a changed server or provider, a
// deleted server is refused or served anew on the very next request, on this instance and on another sharing
// the store; an expired token is refused from its expiry instant on.

describe("AdmissionMemo", () => {
  const memoAt = (stamp: { value: number | undefined }, now = () => 0, max?: number) => {
    const memo = new AdmissionMemo<string>(max, now);
    memo.useStamp(() => stamp.value);
    return memo;
  };

  it("replays an answer while the stamp stays, and nothing once it moved", () => {
    const stamp = { value: 1 as number | undefined };
    const memo = memoAt(stamp);
    memo.keep("a", memo.stamp(), "admitted", null);
    expect(memo.replay("a")).toBe("admitted");
    expect(memo.replay("b")).toBeUndefined();
    stamp.value = 2;
    expect(memo.replay("a")).toBeUndefined();
    expect(memo.size).toBe(0);
    // Back to the former value (a store that cannot vouch, then can): what went stays gone.
    stamp.value = 1;
    expect(memo.replay("a")).toBeUndefined();
    expect(memo.replays).toBe(1);
  });

  it("keeps nothing whose reads overlapped a commit, nor while the store cannot vouch", () => {
    const stamp = { value: 1 as number | undefined };
    const memo = memoAt(stamp);
    const before = memo.stamp();
    stamp.value = 2;
    memo.keep("a", before, "stale", null);
    expect(memo.replay("a")).toBeUndefined();
    stamp.value = undefined;
    memo.keep("a", memo.stamp(), "unvouched", null);
    expect(memo.replay("a")).toBeUndefined();
    expect(memo.size).toBe(0);
  });

  it("replays nothing while the store cannot vouch, and what it kept once it vouches again for the same stamp", () => {
    const stamp = { value: 1 as number | undefined };
    const memo = memoAt(stamp);
    memo.keep("a", memo.stamp(), "admitted", null);
    stamp.value = undefined;
    expect(memo.replay("a")).toBeUndefined();
    expect(memo.size).toBe(1);
    stamp.value = 1;
    expect(memo.replay("a")).toBe("admitted");
    // A lapse, then a moved stamp: all of it goes.
    stamp.value = undefined;
    expect(memo.replay("a")).toBeUndefined();
    stamp.value = 2;
    expect(memo.replay("a")).toBeUndefined();
    expect(memo.size).toBe(0);
  });

  it("keeps nothing without a stamp source (a store that offers none)", () => {
    const memo = new AdmissionMemo<string>();
    memo.keep("a", memo.stamp(), "admitted", null);
    expect(memo.replay("a")).toBeUndefined();
  });

  it("drops an answer at its token's expiry instant, exactly", () => {
    let now = 1_000;
    const memo = memoAt({ value: 1 }, () => now);
    memo.keep("a", memo.stamp(), "admitted", new Date(5_000));
    now = 4_999;
    expect(memo.replay("a")).toBe("admitted");
    now = 5_000;
    expect(memo.replay("a")).toBeUndefined();
    expect(memo.size).toBe(0);
  });

  it("replays only what the caller can still use, and keeps at most `max` answers, oldest out", () => {
    const memo = memoAt({ value: 1 }, () => 0, 2);
    for (const key of ["a", "b", "c"]) memo.keep(key, memo.stamp(), key, null);
    expect([memo.replay("a"), memo.replay("b"), memo.replay("c")]).toEqual([undefined, "b", "c"]);
    expect(memo.replay("b", () => false)).toBeUndefined();
    expect(memo.replay("b")).toBeUndefined();
  });
});

const SETTINGS = { upstreamAllowedNetworks: ["127.0.0.0/8"], upstreamTimeoutMs: 2_000 };
const META = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientInfo": { name: "test", version: "1" },
  "io.modelcontextprotocol/clientCapabilities": {},
};

let services: Services;
let upstream: Upstream;
let fixture: Awaited<ReturnType<typeof buildFixture>>;
/** Two instances over one store: `laned` answers on the fast lane, `sdk` on the SDK path only. */
let laned: RunningMcp;
let sdk: RunningMcp;

beforeAll(async () => {
  services = makeServices();
  upstream = await startUpstream();
  laned = await startMcp(services, SETTINGS);
  sdk = await startMcp(services, SETTINGS, { fastLane: false });
  fixture = await buildFixture(services, upstream);
});

afterAll(async () => {
  await laned?.close();
  await sdk?.close();
  await upstream?.close();
  await services?.dispose();
});

afterEach(() => {
  vi.useRealTimers();
});

/** A 2026-07-28 tools/list through `mcp`: its status and the tools' descriptions. */
const listed = async (mcp: RunningMcp, serverId: string, token: string) => {
  const answer = await postJson(
    `${mcp.url}/mcp/${serverId}`,
    { Authorization: `Bearer ${token}`, "MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/list" },
    { jsonrpc: "2.0", id: 1, method: "tools/list", params: { _meta: META } },
  );
  const tools =
    answer.status === 200
      ? (JSON.parse(answer.body) as { result: { tools: Array<{ name: string; description?: string }> } }).result.tools
      : [];
  return { status: answer.status, tools };
};

/** `listed`, and whether the gate answered it from its memo. */
const listedCounting = async (mcp: RunningMcp, serverId: string, token: string) => {
  const before = mcp.runtime.gateReplays();
  const answer = await listed(mcp, serverId, token);
  return { ...answer, replayed: mcp.runtime.gateReplays() > before };
};

/** A server of the fixture's provider (every tool) with a token of its own. */
const servedWithToken = async (name: string, token: Record<string, unknown> = { name: "memo" }) => {
  const server = await fixture.m.server({ name, providers: [{ id: fixture.provider.id }] });
  return { server, token: await fixture.m.token(server.id, token) };
};

describe("the gate's memo in the runtime", () => {
  it("replays an admission on the fast lane and on the SDK path, per token and server", async () => {
    const { server, token } = await servedWithToken("Memo replays");
    for (const mcp of [laned, sdk]) {
      expect((await listedCounting(mcp, server.id, token.value)).replayed).toBe(false);
      const again = await listedCounting(mcp, server.id, token.value);
      expect(again).toMatchObject({ status: 200, replayed: true });
    }
    // Another token of the same server is its own admission.
    const other = await fixture.m.token(server.id, { name: "other" });
    expect((await listedCounting(laned, server.id, other.value)).replayed).toBe(false);
    // The token on another server: refused, never replayed.
    const refused = await listedCounting(laned, fixture.server.id, token.value);
    expect(refused).toMatchObject({ status: 401, replayed: false });
  });

  it("a revoked token: refused on the next request, on this instance and on another", async () => {
    const { server, token } = await servedWithToken("Memo revoked");
    for (const mcp of [laned, sdk]) {
      await listed(mcp, server.id, token.value);
      expect((await listedCounting(mcp, server.id, token.value)).replayed).toBe(true);
    }
    await fixture.m.revoke(server.id, token.id);
    expect((await listed(laned, server.id, token.value)).status).toBe(401);
    expect((await listed(sdk, server.id, token.value)).status).toBe(401);
  });

  it("a changed server: served anew on the next request", async () => {
    const { server, token } = await servedWithToken("Memo server change");
    await listed(laned, server.id, token.value);
    expect((await listedCounting(laned, server.id, token.value)).tools.length).toBeGreaterThan(1);
    await fixture.m.updateServer(server.id, {
      providers: [{ id: fixture.provider.id, tools: [{ id: fixture.tools.getItem.id }] }],
    });
    const after = await listedCounting(laned, server.id, token.value);
    expect(after.replayed).toBe(false);
    expect(after.tools.map((tool) => tool.name)).toEqual(["getItem"]);
    expect((await listed(sdk, server.id, token.value)).tools.map((tool) => tool.name)).toEqual(["getItem"]);
  });

  it("a changed provider: served anew on the next request", async () => {
    const { server, token } = await servedWithToken("Memo provider change");
    await listed(laned, server.id, token.value);
    await listed(sdk, server.id, token.value);
    expect((await listedCounting(laned, server.id, token.value)).replayed).toBe(true);
    await fixture.m.updateTool(fixture.provider.id, fixture.tools.array.id, { description: "Lists, edited" });
    for (const mcp of [laned, sdk]) {
      const after = await listedCounting(mcp, server.id, token.value);
      expect(after.replayed).toBe(false);
      expect(after.tools.find((tool) => tool.name === "array")?.description).toBe("Lists, edited");
    }
  });

  it("a deleted server: not found on the next request", async () => {
    const { server, token } = await servedWithToken("Memo deleted");
    await listed(laned, server.id, token.value);
    expect((await listedCounting(laned, server.id, token.value)).replayed).toBe(true);
    await services.runPromise(U.deleteServer(actorOf("acme"), { serverId: server.id }) as never);
    // Its tokens went with it: the credential is refused.
    expect((await listed(laned, server.id, token.value)).status).toBe(401);
  });

  it("an expiring token: replayed until its expiry instant, refused from it on", async () => {
    const expiresAt = new Date(Date.now() + 3_600_000);
    const { server, token } = await servedWithToken("Memo expiry", {
      name: "expiring",
      expiresAt: expiresAt.toISOString(),
    });
    await listed(laned, server.id, token.value);
    // Only Date moves: the domain's clock (Effect's default) and the memo's read it.
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(expiresAt.getTime() - 1);
    expect(await listedCounting(laned, server.id, token.value)).toMatchObject({ status: 200, replayed: true });
    vi.setSystemTime(expiresAt.getTime());
    expect(await listedCounting(laned, server.id, token.value)).toMatchObject({ status: 401, replayed: false });
    expect((await listed(sdk, server.id, token.value)).status).toBe(401);
  });

  it("a store without a change stamp: every request reads it", async () => {
    const store = makeMemoryStorage();
    const stampless: typeof Storage.Service = { read: store.read, transaction: store.transaction, calls: store.calls };
    const own = makeServices(stampless);
    const mcp = await startMcp(own, SETTINGS);
    try {
      const ownFixture = await buildFixture(own, upstream);
      for (let i = 0; i < 3; i++)
        expect(await listedCounting(mcp, ownFixture.server.id, ownFixture.token.value)).toMatchObject({
          status: 200,
          replayed: false,
        });
    } finally {
      await mcp.close();
      await own.dispose();
    }
  });

  it("holds the compiled server of an admission weakly: one the cache let go of is not kept alive by the memo", async () => {
    setFlagsFromString("--expose-gc");
    const gc = runInNewContext("gc") as () => void;
    const mcp = await startMcp(services, SETTINGS);
    try {
      const one = await servedWithToken("Memo weak 1");
      const two = await servedWithToken("Memo weak 2");
      expect((await listed(mcp, one.server.id, one.token.value)).status).toBe(200);
      // Server one is let go of (least recently used, once two is compiled) while its admission stays in the
      // memo until its key is asked again. Only a WeakRef to it leaves this function.
      const evictOne = async () => {
        const held = await mcp.runtime.cache.current(one.server.id);
        const compiled = Exit.isSuccess(held) ? held.value : undefined;
        if (compiled === undefined) throw new Error("server one is not compiled");
        expect((await listed(mcp, two.server.id, two.token.value)).status).toBe(200);
        mcp.runtime.cache.charge(compiled, 1024 ** 3);
        expect(mcp.runtime.cache.size).toBe(1);
        return new WeakRef(compiled);
      };
      const ref = await evictOne();
      await new Promise((resolve) => setImmediate(resolve));
      gc();
      expect(ref.deref()).toBeUndefined();
      // Asked again: admitted anew, not replayed.
      expect(await listedCounting(mcp, one.server.id, one.token.value)).toMatchObject({ status: 200, replayed: false });
    } finally {
      await mcp.close();
    }
  });

  it("keeps at most MCP_ADMISSION_MEMO_ENTRIES admissions", async () => {
    const mcp = await startMcp(services, { ...SETTINGS, admissionMemoEntries: 1 });
    try {
      const one = await servedWithToken("Memo bound 1");
      const two = await servedWithToken("Memo bound 2");
      await listed(mcp, one.server.id, one.token.value);
      expect(await listedCounting(mcp, one.server.id, one.token.value)).toMatchObject({ replayed: true });
      // Two alternating callers over a memo of one: each pushes the other out.
      for (let i = 0; i < 2; i++) {
        expect(await listedCounting(mcp, two.server.id, two.token.value)).toMatchObject({
          status: 200,
          replayed: false,
        });
        expect(await listedCounting(mcp, one.server.id, one.token.value)).toMatchObject({
          status: 200,
          replayed: false,
        });
      }
    } finally {
      await mcp.close();
    }
  });
});
