import { connect } from "node:net";
import { describe, expect, it } from "vitest";
import { useLanePair } from "./support/lane-pair.js";

// The fast lane keeps a tools/list answer encoded and writes it with the request's id after it (lane-wire.ts,
// `writeJoined`). What reaches the client must be what one `res.end(body)` sends: the same header lines, then
// the body as one chunk and the last chunk. Read here as raw bytes off the socket (an HTTP client would hide
// the chunks), for both eras and ids that JSON escapes or that are not ASCII, and compared with the SDK path.

const pair = useLanePair();

const META = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientInfo": { name: "test", version: "1" },
  "io.modelcontextprotocol/clientCapabilities": {},
};

/** One request on a fresh connection; the raw answer up to the end of its chunked body, Date line removed. */
const rawExchange = (base: string, path: string, headers: Record<string, string>, body: string) =>
  new Promise<string>((resolve, reject) => {
    const { hostname, port } = new URL(base);
    const socket = connect(Number(port), hostname);
    const chunks: Buffer[] = [];
    socket.on("data", (chunk: Buffer) => {
      chunks.push(chunk);
      const text = Buffer.concat(chunks).toString("latin1");
      if (!text.endsWith("\r\n0\r\n\r\n")) return;
      socket.destroy();
      resolve(text.replace(/\r\nDate: [^\r]*/i, ""));
    });
    socket.on("error", reject);
    const lines = Object.entries({ ...headers, "Content-Length": String(Buffer.byteLength(body)) });
    socket.write(
      `POST ${path} HTTP/1.1\r\nHost: ${hostname}:${port}\r\n${lines.map(([k, v]) => `${k}: ${v}\r\n`).join("")}\r\n`,
    );
    socket.write(body);
  });

/** The body of a raw chunked answer as its chunks (latin1 text of their bytes). */
const chunksOf = (raw: string): string[] => {
  const chunks: string[] = [];
  let at = raw.indexOf("\r\n\r\n") + 4;
  for (;;) {
    const lineEnd = raw.indexOf("\r\n", at);
    const size = Number.parseInt(raw.slice(at, lineEnd), 16);
    if (size === 0) return chunks;
    chunks.push(raw.slice(lineEnd + 2, lineEnd + 2 + size));
    at = lineEnd + 2 + size + 2;
  }
};

describe("a kept tools/list answer on the wire", () => {
  for (const era of ["2026-07-28", "2025-11-25"] as const) {
    it(`is one chunk, header lines and bytes as the SDK path's (${era})`, async () => {
      const { fast, slow, fixture } = pair;
      const headers: Record<string, string> = {
        "Content-Type": "application/json",
        Accept: "application/json, text/event-stream",
        "MCP-Protocol-Version": era,
        ...(era === "2026-07-28" ? { "Mcp-Method": "tools/list" } : {}),
        Authorization: `Bearer ${fixture.token.value}`,
      };
      const params = era === "2026-07-28" ? { _meta: META } : {};
      for (const id of [1, 12345678901, "x", 'quote " and \\ back', "é ✓ 𝄞"]) {
        const body = JSON.stringify({ jsonrpc: "2.0", id, method: "tools/list", params });
        const before = fast.runtime.fastLaneAnswers();
        const fromFast = await rawExchange(fast.url, `/mcp/${fixture.server.id}`, headers, body);
        expect(fast.runtime.fastLaneAnswers()).toBe(before + 1);
        const fromSlow = await rawExchange(slow.url, `/mcp/${fixture.server.id}`, headers, body);
        const fastChunks = chunksOf(fromFast);
        // Same header lines, and the same body bytes (answers name the runtime's own URL in metadata links).
        expect(fromFast.slice(0, fromFast.indexOf("\r\n\r\n"))).toBe(fromSlow.slice(0, fromSlow.indexOf("\r\n\r\n")));
        expect(fastChunks.join("").replaceAll(fast.url, slow.url)).toBe(chunksOf(fromSlow).join(""));
        expect(fastChunks).toHaveLength(1);
        const text = Buffer.from(fastChunks[0] ?? "", "latin1").toString("utf8");
        const json = era === "2026-07-28" ? text : text.replace(/^event: message\ndata: /, "").replace(/\n\n$/, "");
        expect(JSON.parse(json).id).toEqual(id);
      }
    });
  }
});
