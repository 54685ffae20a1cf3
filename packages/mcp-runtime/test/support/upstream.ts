import { EventEmitter } from "node:events";
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/** One request as the upstream saw it. */
export interface SeenRequest {
  readonly method: string;
  readonly url: string;
  readonly headers: IncomingMessage["headers"];
  readonly rawHeaders: ReadonlyArray<string>;
  readonly body: string;
}

export interface Upstream {
  readonly url: string;
  readonly port: number;
  readonly seen: Array<SeenRequest>;
  readonly last: () => SeenRequest;
  /** Emits `hang` when a request reaches `/hang`, and `hang-aborted` when its caller gives up on it. */
  readonly events: EventEmitter;
  readonly close: () => Promise<void>;
}

/**
 * A local REST upstream: `/echo/...` answers 200 with what it received as JSON; `/status/{code}` answers that
 * status; `/hang` never answers; `/big/{bytes}` sends that many bytes of text; `/text`, `/image`, redirects.
 */
export const startUpstream = async (): Promise<Upstream> => {
  const seen: Array<SeenRequest> = [];
  const events = new EventEmitter();
  let server: Server;
  server = createServer((req, res) => {
    const chunks: Array<Buffer> = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8");
      seen.push({
        method: req.method ?? "",
        url: req.url ?? "",
        headers: req.headers,
        rawHeaders: req.rawHeaders,
        body,
      });
      const url = new URL(req.url ?? "/", "http://upstream");
      const path = url.pathname.replace(/^\/api(?=\/)/, "");
      if (path.startsWith("/echo")) {
        res.writeHead(200, { "Content-Type": "application/json; charset=utf-8" });
        res.end(
          JSON.stringify({ method: req.method, path, query: url.search, body: body === "" ? null : JSON.parse(body) }),
        );
      } else if (path.startsWith("/status/")) {
        const code = Number(path.slice("/status/".length));
        res.writeHead(code, { "Content-Type": "application/json" });
        res.end(JSON.stringify({ message: `failed with ${code}` }));
      } else if (path === "/hang") {
        // never answers; the socket is destroyed when the server closes, or by the caller
        res.on("close", () => {
          if (!res.writableEnded) events.emit("hang-aborted");
        });
        events.emit("hang");
      } else if (path.startsWith("/big/")) {
        const size = Number(path.slice("/big/".length));
        res.writeHead(200, { "Content-Type": "text/plain" });
        res.end("x".repeat(size));
      } else if (path === "/text") {
        res.writeHead(200, { "Content-Type": "text/plain; charset=utf-8" });
        res.end("plain text ✓");
      } else if (path === "/array") {
        res.writeHead(200, { "Content-Type": "application/json" });
        res.end("[1,2,3]");
      } else if (path === "/image") {
        res.writeHead(200, { "Content-Type": "image/png" });
        res.end(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 1, 2, 255]));
      } else if (path === "/audio") {
        res.writeHead(200, { "Content-Type": "audio/mpeg" });
        res.end(Buffer.from([0xff, 0xfb, 0x90, 0x64]));
      } else if (path === "/binary") {
        res.writeHead(200, { "Content-Type": "application/octet-stream" });
        res.end(Buffer.from([0, 1, 2, 3, 254]));
      } else if (path.startsWith("/big-image/")) {
        res.writeHead(200, { "Content-Type": "image/png" });
        res.end(Buffer.alloc(Number(path.slice("/big-image/".length)), 7));
      } else if (path === "/redirect-same") {
        res.writeHead(302, { Location: "/echo/redirected" });
        res.end();
      } else if (path === "/redirect-other") {
        res.writeHead(302, { Location: `http://127.0.0.1:${(server.address() as AddressInfo).port}/echo/elsewhere` });
        res.end();
      } else {
        res.writeHead(404, { "Content-Type": "text/plain" });
        res.end("no such upstream path");
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    seen,
    events,
    last: () => {
      const request = seen.at(-1);
      if (request === undefined) throw new Error("the upstream saw no request");
      return request;
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
};
