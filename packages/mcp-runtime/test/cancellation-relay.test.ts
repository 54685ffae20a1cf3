import { EventEmitter, once } from "node:events";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CancellationRelay, RelayedCancellation } from "../src/index.js";
import { buildFixture } from "./support/fixture.js";
import { makeServices, type RunningMcp, type Services, startMcp } from "./support/harness.js";
import { startUpstream, type Upstream } from "./support/upstream.js";

// Issue 16: a 2025-era `notifications/cancelled` that reaches another instance than the one running the
// call (the endpoint is stateless: no session pins a client to an instance) still aborts the upstream call,
// through a cancellation relay shared by the instances (the service uses Redis pub/sub; here an in-process
// bus). Only the same credential's call is aborted, and nothing but a token digest travels.

/** A relay between the runtimes of this process, recording what it carried. */
const busRelay = (bus: EventEmitter, carried: Array<RelayedCancellation>): CancellationRelay => ({
  publish: (cancellation) => {
    carried.push(cancellation);
    bus.emit("cancel", cancellation);
  },
  subscribe: (handler) => {
    bus.on("cancel", handler);
    return () => bus.off("cancel", handler);
  },
});

let services: Services;
let upstream: Upstream;
let a: RunningMcp;
let b: RunningMcp;
let fixture: Awaited<ReturnType<typeof buildFixture>>;
const carried: Array<RelayedCancellation> = [];

beforeAll(async () => {
  services = makeServices();
  upstream = await startUpstream();
  const bus = new EventEmitter();
  const settings = { upstreamAllowedNetworks: ["127.0.0.0/8"], upstreamTimeoutMs: 60_000 };
  a = await startMcp(services, settings, { cancellationRelay: busRelay(bus, carried) });
  b = await startMcp(services, settings, { cancellationRelay: busRelay(bus, carried) });
  fixture = await buildFixture(services, upstream);
});

afterAll(async () => {
  await a?.close();
  await b?.close();
  await upstream?.close();
  await services?.dispose();
});

const post = (base: string, token: string, message: object) =>
  fetch(`${base}/mcp/${fixture.server.id}`, {
    method: "POST",
    headers: {
      Authorization: `Bearer ${token}`,
      "Content-Type": "application/json",
      Accept: "application/json, text/event-stream",
      "MCP-Protocol-Version": "2025-11-25",
    },
    body: JSON.stringify({ jsonrpc: "2.0", ...message }),
  });

describe("a cancellation reaching another instance", () => {
  it("aborts the upstream call running on the first, only for the same credential", async () => {
    const other = await fixture.m.token(fixture.server.id, { name: "someone else" });
    const hang = once(upstream.events, "hang");
    const pending = post(a.url, fixture.token.value, {
      id: 11,
      method: "tools/call",
      params: { name: "slow", arguments: {} },
    });
    await hang;
    let abortedEarly = false;
    upstream.events.once("hang-aborted", () => {
      abortedEarly = true;
    });
    const foreign = await post(b.url, other.value, {
      method: "notifications/cancelled",
      params: { requestId: 11, reason: "not mine" },
    });
    expect(foreign.status).toBe(202);
    expect(abortedEarly).toBe(false);

    const aborted = once(upstream.events, "hang-aborted");
    const cancel = await post(b.url, fixture.token.value, {
      method: "notifications/cancelled",
      params: { requestId: 11, reason: "stop" },
    });
    expect(cancel.status).toBe(202);
    await aborted;
    expect(await (await pending).text()).toContain("cancelled");
    // What travelled: the caller key (server id and a digest) and the id, never the token.
    expect(carried.at(-1)).toMatchObject({ id: 11, reason: "stop" });
    expect(carried.at(-1)?.caller.startsWith(`${fixture.server.id}:`)).toBe(true);
    expect(JSON.stringify(carried)).not.toContain(fixture.token.value);
  });
});
