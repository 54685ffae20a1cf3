import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Router } from "@koa/router";
import Koa from "koa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { routesBySegment } from "../src/http/segment-routes.js";

// The routes split by first segment answer every request the way the whole router does: the same route (or
// none), the same status, the same Allow header.

const OPTIONS = { strict: true, sensitive: true };

const routes = () => {
  const router = new Router(OPTIONS);
  const answer = (name: string) => (ctx: Koa.Context) => {
    ctx.body = { route: name, params: ctx.params, matched: ctx._matchedRoute };
  };
  router.get("/healthz", answer("healthz"));
  router.get("/servers/:id", answer("getServer"));
  router.patch("/servers/:id", answer("patchServer"));
  router.get("/servers/:id/tools/:toolID", answer("getTool"));
  router.post("/providers/import", answer("import"));
  router.get("/providers/:id", answer("getProvider"));
  router.get("/.well-known/jwks.json", answer("jwks"));
  return router;
};

const serve = (router: (r: Router) => Array<Koa.Middleware>): Promise<Server> => {
  const app = new Koa();
  app.silent = true;
  for (const middleware of router(routes())) app.use(middleware);
  const server = createServer(app.callback());
  return new Promise((done) => server.listen(0, "127.0.0.1", () => done(server)));
};

let whole: Server;
let split: Server;
beforeAll(async () => {
  whole = await serve((r) => [
    r.routes() as unknown as Koa.Middleware,
    r.allowedMethods() as unknown as Koa.Middleware,
  ]);
  split = await serve((r) => [routesBySegment(r, OPTIONS)]);
});
afterAll(() => {
  whole.close();
  split.close();
});

const ask = async (server: Server, method: string, path: string) => {
  const { port } = server.address() as AddressInfo;
  const res = await fetch(`http://127.0.0.1:${port}${path}`, { method });
  return { status: res.status, allow: res.headers.get("allow"), body: await res.text() };
};

describe("routes by first segment", () => {
  const requests: ReadonlyArray<readonly [string, string]> = [
    ["GET", "/healthz"],
    ["GET", "/servers/s1"],
    ["HEAD", "/servers/s1"],
    ["PATCH", "/servers/s1"],
    ["DELETE", "/servers/s1"],
    ["OPTIONS", "/servers/s1"],
    ["PROPFIND", "/servers/s1"],
    ["GET", "/servers/s1/tools/t1"],
    ["GET", "/servers/"],
    ["GET", "/SERVERS/s1"],
    ["GET", "/providers/import"],
    ["POST", "/providers/import"],
    ["GET", "/providers/p1"],
    ["GET", "/.well-known/jwks.json"],
    ["GET", "/nowhere"],
    ["PROPFIND", "/nowhere"],
    ["GET", "/"],
    ["GET", "//servers/s1"],
  ];
  it.each(requests)("%s %s answers as the whole router does", async (method, path) => {
    expect(await ask(split, method, path)).toEqual(await ask(whole, method, path));
  });

  it("answers a route's own request with its parameters", async () => {
    const answer = await ask(split, "GET", "/servers/s1/tools/t1");
    expect(JSON.parse(answer.body)).toEqual({
      route: "getTool",
      params: { id: "s1", toolID: "t1" },
      matched: "/servers/:id/tools/:toolID",
    });
  });

  it("refuses a route whose first segment is a parameter", () => {
    const router = new Router(OPTIONS);
    router.get("/:tenant/servers", (ctx) => {
      ctx.body = "";
    });
    expect(() => routesBySegment(router, OPTIONS)).toThrow(/must be literal/);
  });
});
