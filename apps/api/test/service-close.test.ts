import { subscribe, unsubscribe } from "node:diagnostics_channel";
import { createServer } from "node:http";
import type { Socket } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { startTestService } from "./support/harness.js";
import { type Loopback, listenOnLoopback } from "./support/loopback.js";

// What the service opens, its close releases: the connections its upstream agent keeps alive (here one made
// by an import.url fetch) are closed by the time close() resolves, not left to their idle timeout. Sockets
// are seen as they are made (Node's `net.client.socket` diagnostics channel), so nothing waits on a clock.

const description = stringify({
  openapi: "3.0.3",
  info: { title: "Closer", version: "1" },
  servers: [{ url: "https://closer.example" }],
  paths: { "/a": { get: { operationId: "getA" } } },
});

const host = createServer((_req, res) => res.writeHead(200, { "content-type": "application/yaml" }).end(description));
// The upstream keeps connections open far longer than the test runs: only the client can end them.
host.keepAliveTimeout = 600_000;
let listening: Loopback | undefined;
let port = 0;

beforeAll(async () => {
  listening = await listenOnLoopback(host);
  port = listening.port;
});

afterAll(() => listening?.close());

describe("closing the service", () => {
  it("closes the connections it keeps to upstreams", async () => {
    const made: Array<Socket> = [];
    const seen = (message: unknown) => void made.push((message as { socket: Socket }).socket);
    subscribe("net.client.socket", seen);
    try {
      const svc = await startTestService({ mcp: { upstreamAllowedNetworks: ["127.0.0.0/8"] } });
      const alice = await svc.tenant("closer");
      const res = await alice.api.post("/providers/import", {
        import: { url: `http://127.0.0.1:${port}/closer.yaml`, dryRun: true },
      });
      expect(res.status).toBe(200);
      const upstream = made.filter((socket) => socket.remotePort === port);
      expect(upstream.length).toBeGreaterThan(0);
      expect(upstream.every((socket) => !socket.destroyed)).toBe(true);
      await svc.close();
      expect(upstream.map((socket) => socket.destroyed)).toEqual(upstream.map(() => true));
    } finally {
      unsubscribe("net.client.socket", seen);
    }
  });
});
