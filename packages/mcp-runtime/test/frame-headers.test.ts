import { createServer, get } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { setFrameHeaders, withFrameHeaders } from "../src/exchange/frame-headers.js";

// A host's frame headers joined with an answer's own in one list must send what setting the frame's first and
// then writing the answer's would: the raw header lines of both ways, from a real Node server, compared.

const FRAME = ["X-Request-Id", "r1", "Cache-Control", "no-store", "RateLimit-Limit", "10", "RateLimit-Remaining", "9"];
const OWN_CASES: ReadonlyArray<Record<string, string>> = [
  { "content-type": "application/json" },
  // The 2025-11-25 answer's headers: cache-control is also the frame's.
  { "cache-control": "no-cache, no-transform", connection: "keep-alive", "content-type": "text/event-stream" },
  // The tenant budget's RateLimit-* (lower-case, as the lane sends them) in the frame's places.
  { "content-type": "application/json", "ratelimit-limit": "5", "ratelimit-remaining": "0", "retry-after": "3" },
];

let url = "";
const server = createServer((req, res) => {
  const own = OWN_CASES[Number(req.headers["x-case"])] as Record<string, string>;
  if (req.headers["x-joined"] === "1") res.writeHead(200, withFrameHeaders(FRAME, own));
  else {
    setFrameHeaders(res, FRAME);
    res.writeHead(200, own);
  }
  res.end("ok");
});

beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

/** The answer's header lines as they came over the wire (names as sent, in order), less Date. */
const rawLines = (index: number, joined: boolean) =>
  new Promise<Array<string>>((resolve, reject) => {
    const req = get(url, { headers: { "x-case": String(index), "x-joined": joined ? "1" : "0" } }, (res) => {
      res.resume();
      const lines: Array<string> = [];
      for (let i = 0; i < res.rawHeaders.length; i += 2)
        if (res.rawHeaders[i]?.toLowerCase() !== "date") lines.push(`${res.rawHeaders[i]}: ${res.rawHeaders[i + 1]}`);
      res.on("end", () => resolve(lines));
    });
    req.on("error", reject);
  });

describe("withFrameHeaders", () => {
  it("sends the lines, in order, that setting the frame first would", async () => {
    for (const [index] of OWN_CASES.entries())
      expect(await rawLines(index, true)).toEqual(await rawLines(index, false));
  });

  it("keeps the frame's order, puts a shared name in the frame's place with the answer's value, appends the rest", () => {
    expect(withFrameHeaders(FRAME, OWN_CASES[2] as Record<string, string>)).toEqual([
      "X-Request-Id",
      "r1",
      "Cache-Control",
      "no-store",
      "ratelimit-limit",
      "5",
      "ratelimit-remaining",
      "0",
      "content-type",
      "application/json",
      "retry-after",
      "3",
    ]);
  });

  it("passes an answer's own headers through when there is no frame", () => {
    const own = { "content-type": "application/json" };
    expect(withFrameHeaders(undefined, own)).toBe(own);
  });
});
