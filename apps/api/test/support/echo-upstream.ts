import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/** One request an echo upstream received. */
export interface SeenRequest {
  readonly method: string;
  readonly url: string;
  readonly body: string;
}

/** An upstream on loopback that answers every request with what it received, and remembers it. */
export interface EchoUpstream {
  readonly baseURL: string;
  readonly seen: Array<SeenRequest>;
  readonly close: () => Promise<void>;
}

/** Starts an echo upstream (`{method, url, body}` as JSON) on 127.0.0.1. */
export const startEchoUpstream = async (): Promise<EchoUpstream> => {
  const seen: Array<SeenRequest> = [];
  const server: Server = createServer((req, res) => {
    const chunks: Array<Buffer> = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const answer = { method: req.method ?? "", url: req.url ?? "", body: Buffer.concat(chunks).toString("utf8") };
      seen.push(answer);
      res.writeHead(200, { "Content-Type": "application/json" });
      res.end(JSON.stringify(answer));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    baseURL: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
};
