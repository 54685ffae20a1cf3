// CPU per request of the management middleware stack alone, for a kept GET /servers/{id} answer (issue 32):
// one checkout's built `createApp` (request frame, metrics and approval observers, address and tenant rate
// limits, Node endpoint pass-through, unknown-path checks, router, operation middleware, serialised answer)
// with authentication, storage and the use case stubbed (a verified actor, a cached graph, a 23 KB answer),
// on a loopback server driven from the same process at 16 connections. A checkout with the kept-answer lane
// (`createRequestHandler`, issue 32 branch getmw) is measured through it, as the service wires it.
//
//   node bench/management-stack.mjs [checkout=.] [requests=6000] [label]
//
// Prints µs of process CPU (server and client) per request. No database, no socket to another process: what
// changes between two checkouts is their stack. On a shared machine run two checkouts alternately several
// times and compare the lowest figures (interference only adds).
import { openSync } from "node:fs";
import { Agent, createServer, request } from "node:http";
import { resolve } from "node:path";
import { ALL_SCOPES } from "@mcpsm/domain";
import { Exit } from "effect";
import pino from "pino";

const root = resolve(process.argv[2] ?? ".");
const { createApp, createRequestHandler } = await import(`${root}/apps/api/dist/app.js`);
const { createServiceMetrics } = await import(`${root}/apps/api/dist/operations/metrics.js`);
const { createApprovalMetrics } = await import(`${root}/apps/api/dist/operations/approval-metrics.js`);
const { createRateLimiter } = await import(`${root}/apps/api/dist/security/rate-limit.js`);
const logger = pino({ level: "info" }, pino.destination({ fd: openSync("/dev/null", "w"), sync: false }));
const metrics = createServiceMetrics();
const approvals = createApprovalMetrics(metrics.registry);
const rule = { points: 1e9, burst: 1e9, windowSeconds: 1 };
const rateLimiter = createRateLimiter({ enabled: true, keyPrefix: "rl", address: rule, tenant: rule }, logger);
const actor = { tenant: "t1", scopes: new Set(ALL_SCOPES), sub: "bench", clientId: undefined };
const graph = { server: { tenant: "t1" } };
const body = {
  server: {
    items: Array.from({ length: 350 }, (_, i) => ({ id: `x${i}`, name: "some tool name here", d: "description text" })),
  },
};
// As the service wires it: the kept-answer lane in front when the checkout has one (issue 32, getmw).
let verifies = 0;
const handlerOf = createRequestHandler ?? ((deps) => createApp(deps).callback());
const handler = handlerOf({
  runtime: { runPromiseExit: async () => Exit.succeed({ status: 200, body, version: 3 }) },
  verifier: {
    verify: async () => {
      verifies += 1;
      return actor;
    },
    verified: () => actor,
  },
  observeKeptAnswer: metrics.observeRequest,
  logger,
  ready: async () => true,
  rateLimiter,
  cachedServerGraph: () => graph,
  mcp: { matches: (p) => p.startsWith("/mcp/"), handleNode: () => {} },
  oauthServer: { matches: (p) => p.startsWith("/oauth/"), handleNode: () => {} },
  observe: [metrics.httpMiddleware, approvals.apiDecisions],
});
const server = createServer(handler);
await new Promise((d) => server.listen(0, "127.0.0.1", d));
const { port } = server.address();
const agent = new Agent({ keepAlive: true, maxSockets: 16 });
const id = "00000000-0000-4000-8000-000000000001";
const one = () =>
  new Promise((done) => {
    const req = request(
      { host: "127.0.0.1", port, path: `/servers/${id}`, agent, headers: { authorization: "Bearer abc" } },
      (res) => {
        if (res.statusCode !== 200) throw new Error(`status ${res.statusCode}`);
        res.resume();
        res.on("end", done);
      },
    );
    req.end();
  });
const run = async (n) => {
  let left = n;
  await Promise.all(
    Array.from({ length: 16 }, async () => {
      while (left-- > 0) await one();
    }),
  );
};
await run(3000);
const N = Number(process.argv[3] ?? 6000);
const c0 = process.cpuUsage();
await run(N);
const c = process.cpuUsage(c0);
console.log(
  `${process.argv[4] ?? root} µs CPU per request (server and client) ${((c.user + c.system) / N).toFixed(1)}`,
);
console.log(`verify calls: ${verifies}`);
server.close();
agent.destroy();
process.exit(0);
