import { randomUUID } from "node:crypto";
import { once } from "node:events";
import { EventEmitter } from "node:events";
import { Storage } from "@mcpsm/domain/storage";
import { makeMemoryStorage } from "@mcpsm/storage-memory";
import { Layer } from "effect";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_SECURITY_SETTINGS } from "../src/config/security-config.js";
import { redisCancellationRelay } from "../src/mcp/redis-cancellation-relay.js";
import { type Loopback, listenOnLoopback } from "./support/loopback.js";
import { startTestService, type TestService } from "./support/harness.js";
import { createProvider, createServer as createMcpServer, createTool, createToken } from "./support/records.js";

// Issue 16: the endpoint is stateless (no session pins a 2025-era client to an instance), so its
// `notifications/cancelled` — a POST of its own — may reach another instance than the call. With REDIS_URL
// set, the instances relay such cancellations over Redis pub/sub (the real Redis of TEST_REDIS_URL, which
// .ci/run sets): a call running on A is aborted upstream by a cancellation posted to B. Without
// TEST_REDIS_URL the file registers nothing (as the other Redis tests; README, "Tests").

const redisUrl = process.env.TEST_REDIS_URL ?? "";
const describeWithRedis = redisUrl === "" ? () => {} : describe;
const prefix = `mcpsm-test-${randomUUID()}`;

let upstream: Loopback;
let upstreamUrl: string;
const events = new EventEmitter();
let a: TestService;
let b: TestService;

beforeAll(async () => {
  if (redisUrl === "") return;
  upstream = await listenOnLoopback((req) => {
    // Never answers: only a cancellation (or the long timeout) ends the exchange.
    events.emit("hang");
    req.socket.once("close", () => events.emit("aborted"));
  });
  upstreamUrl = upstream.url;
  const shared = Layer.succeed(Storage, makeMemoryStorage());
  const options = {
    ownStorage: shared,
    mcp: { upstreamAllowedNetworks: ["127.0.0.0/8"], upstreamTimeoutMs: 60_000 },
    security: {
      rateLimit: { ...DEFAULT_SECURITY_SETTINGS.rateLimit, enabled: false, redisUrl, keyPrefix: prefix },
    },
  };
  a = await startTestService(options);
  b = await startTestService(options);
});

afterAll(async () => {
  await a?.close();
  await b?.close();
  await upstream?.close();
});

const post = (base: string, serverId: string, token: string, message: object) =>
  fetch(`${base}/mcp/${serverId}`, {
    method: "POST",
    headers: {
      Authorization: `Bearer ${token}`,
      "Content-Type": "application/json",
      Accept: "application/json, text/event-stream",
      "MCP-Protocol-Version": "2025-11-25",
    },
    body: JSON.stringify({ jsonrpc: "2.0", ...message }),
  });

describeWithRedis("cancellation across instances (Redis relay)", () => {
  it("a cancellation posted to B aborts the upstream call running on A", async () => {
    const owner = await a.tenant("relay");
    const provider = await createProvider(owner.api, { baseURL: upstreamUrl });
    const tool = await createTool(owner.api, provider.id, { name: "slow", path: "/slow" });
    const server = await createMcpServer(owner.api, {
      providers: [{ id: provider.id, tools: [{ id: tool.id }] }],
    });
    const token = (await createToken(owner.api, server.id)).value as string;

    const hang = once(events, "hang");
    const pending = post(a.url, server.id, token, {
      id: 21,
      method: "tools/call",
      params: { name: "slow", arguments: {} },
    });
    await hang;
    const aborted = once(events, "aborted");
    const cancel = await post(b.url, server.id, token, {
      method: "notifications/cancelled",
      params: { requestId: 21, reason: "stop" },
    });
    expect(cancel.status).toBe(202);
    await aborted;
    expect(await (await pending).text()).toContain("cancelled");
  });

  it("the relay ignores what is not a cancellation on its channel", async () => {
    const logger = pino({ level: "silent" });
    const channel = `${prefix}:garbage`;
    const sender = redisCancellationRelay(redisUrl, channel, logger);
    const receiver = redisCancellationRelay(redisUrl, channel, logger);
    try {
      await Promise.all([sender.ready, receiver.ready]);
      const received: Array<unknown> = [];
      const arrived = new Promise<void>((resolve) =>
        receiver.subscribe((c) => {
          received.push(c);
          resolve();
        }),
      );
      const { Redis } = await import("ioredis");
      const raw = new Redis(redisUrl);
      await raw.publish(channel, "not json");
      await raw.publish(channel, JSON.stringify({ caller: 1, id: {} }));
      await raw.quit();
      sender.publish({ caller: "server:digest", id: 3 });
      await arrived;
      expect(received).toEqual([{ caller: "server:digest", id: 3 }]);
    } finally {
      await sender.close();
      await receiver.close();
    }
  });
});
