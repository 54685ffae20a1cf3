import { once } from "node:events";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { Either } from "effect";
import { Agent } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { callUpstream, type UpstreamCall, type UpstreamOutcome } from "../src/upstream-client.js";

// The upstream client against real loopback HTTP servers: what each kind of answer becomes, and that the
// deadline, the size cap and the caller's cancellation end an exchange however far it got.

type Handler = (req: IncomingMessage, res: ServerResponse, body: string) => void;

const listen = async (handler: Handler): Promise<{ server: Server; origin: string }> => {
  const server = createServer((req, res) => {
    const chunks: Array<Buffer> = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => handler(req, res, Buffer.concat(chunks).toString("utf8")));
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  return { server, origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
};

const LIMITS = { timeoutMs: 2_000, maxResponseBytes: 1_000 };

/** Requests that never end until the test says so (the deadline and cancellation tests). */
const stalled: Array<ServerResponse> = [];

let main: { server: Server; origin: string };
let other: { server: Server; origin: string };
const agent = new Agent();

beforeAll(async () => {
  other = await listen((_req, res) => res.end("elsewhere"));
  main = await listen((req, res, body) => {
    const url = new URL(req.url ?? "/", "http://x");
    switch (url.pathname) {
      case "/echo":
        res.setHeader("content-type", "application/json");
        return res.end(
          JSON.stringify({ method: req.method, query: url.search, body, header: req.headers["x-test"] ?? null }),
        );
      case "/big":
        // 3 chunks of 600 bytes: over the 1,000-byte cap in the second.
        res.write("a".repeat(600));
        res.write("b".repeat(600));
        return res.end("c".repeat(600));
      case "/see-other":
        res.statusCode = 303;
        res.setHeader("location", "/echo?after=303");
        return res.end("x".repeat(200_000));
      case "/temporary":
        res.statusCode = 307;
        res.setHeader("location", "/echo?after=307");
        return res.end();
      case "/away":
        res.statusCode = 302;
        res.setHeader("location", `${other.origin}/`);
        return res.end();
      case "/loop":
        res.statusCode = 302;
        res.setHeader("location", "/loop");
        return res.end();
      case "/accepted":
        res.statusCode = 202;
        res.setHeader("operation-location", "/status/1");
        res.setHeader("retry-after", "3");
        return res.end();
      case "/events":
        res.setHeader("content-type", "text/event-stream");
        res.write("data: one\n\n");
        return res.end("data: two\n\n");
      case "/stall-headers":
        stalled.push(res);
        return;
      case "/stall-body":
        res.setHeader("content-type", "text/plain");
        res.write("started");
        stalled.push(res);
        return;
      default:
        res.statusCode = 404;
        return res.end("no such path");
    }
  });
});

afterAll(async () => {
  for (const res of stalled) res.destroy();
  await agent.close();
  main.server.close();
  other.server.close();
});

const call = (path: string, extra: Partial<UpstreamCall> = {}, limits = LIMITS): Promise<UpstreamOutcome> =>
  callUpstream(agent, { method: "GET", url: new URL(path, main.origin), headers: [], ...extra }, limits);

const answered = (outcome: UpstreamOutcome) => {
  if (Either.isLeft(outcome)) throw new Error(`expected an answer, got ${outcome.left.kind}: ${outcome.left.message}`);
  return outcome.right;
};

const failure = (outcome: UpstreamOutcome) => {
  if (Either.isRight(outcome)) throw new Error(`expected a failure, got HTTP ${outcome.right.status}`);
  return outcome.left;
};

describe("callUpstream", () => {
  it("sends the method, headers and body and reads the whole answer", async () => {
    const response = answered(
      await call("/echo?q=1", { method: "POST", headers: [["x-test", "yes"]], body: '{"a":1}' }),
    );
    expect(response.status).toBe(200);
    expect(response.contentType).toBe("application/json");
    expect(response.truncated).toBe(false);
    expect(JSON.parse(response.body.toString())).toEqual({
      method: "POST",
      query: "?q=1",
      body: '{"a":1}',
      header: "yes",
    });
  });

  it("keeps an error status as an answer, with its text", async () => {
    const response = answered(await call("/nowhere"));
    expect([response.status, response.statusText, response.body.toString()]).toEqual([
      404,
      "Not Found",
      "no such path",
    ]);
  });

  it("keeps the first bytes up to the cap and says the answer was truncated", async () => {
    const response = answered(await call("/big"));
    expect(response.truncated).toBe(true);
    expect(response.body.toString()).toBe(`${"a".repeat(600)}${"b".repeat(400)}`);
  });

  it("follows a same-origin 303 as a GET without a body, past a large redirect body", async () => {
    const response = answered(await call("/see-other", { method: "POST", body: "payload" }));
    expect(JSON.parse(response.body.toString())).toMatchObject({ method: "GET", query: "?after=303", body: "" });
    expect(response.url.pathname).toBe("/echo");
  });

  it("follows a 307 with its method and body", async () => {
    const response = answered(await call("/temporary", { method: "PUT", body: "kept" }));
    expect(JSON.parse(response.body.toString())).toMatchObject({ method: "PUT", query: "?after=307", body: "kept" });
  });

  it("does not follow a redirect to another origin, nor more than five", async () => {
    expect(failure(await call("/away"))).toMatchObject({ kind: "redirect" });
    expect(failure(await call("/loop")).message).toBe("upstream redirected more than 5 times");
  });

  it("reads where a 202 says its operation can be watched", async () => {
    expect(answered(await call("/accepted")).accepted).toEqual({ location: "/status/1", retryAfter: "3" });
  });

  it("shows each chunk of an event stream as it comes, and keeps the whole body", async () => {
    const seen: Array<string> = [];
    const response = answered(await call("/events", { onEventStream: (chunk) => seen.push(chunk.toString()) }));
    expect(seen.join("")).toBe("data: one\n\ndata: two\n\n");
    expect(response.body.toString()).toBe("data: one\n\ndata: two\n\n");
  });

  it("answers a HEAD with an empty body", async () => {
    const response = answered(await call("/echo", { method: "HEAD" }));
    expect([response.status, response.body.length]).toEqual([200, 0]);
  });

  it("ends an exchange at the deadline, before the headers or in the middle of the body", async () => {
    const limits = { timeoutMs: 150, maxResponseBytes: 1_000 };
    for (const path of ["/stall-headers", "/stall-body"])
      expect(failure(await call(path, {}, limits))).toMatchObject({
        kind: "timeout",
        message: "upstream did not answer within 150 ms",
      });
  });

  it("ends an exchange when the caller cancels it, and never starts one already cancelled", async () => {
    const controller = new AbortController();
    const pending = call("/stall-headers", { signal: controller.signal });
    // Cancelled once the upstream has the request (the server holds it).
    const before = stalled.length;
    while (stalled.length === before) await new Promise((resolve) => setImmediate(resolve));
    controller.abort();
    expect(failure(await pending)).toMatchObject({ kind: "cancelled" });
    expect(failure(await call("/echo", { signal: AbortSignal.abort() }))).toMatchObject({ kind: "cancelled" });
  });

  it("says the upstream could not be reached when nothing listens", async () => {
    const { server, origin } = await listen(() => undefined);
    server.close();
    await once(server, "close");
    const outcome = await callUpstream(agent, { method: "GET", url: new URL("/", origin), headers: [] }, LIMITS);
    expect(failure(outcome)).toMatchObject({ kind: "network" });
    expect(failure(outcome).message).toContain("could not reach 127.0.0.1");
  });
});
