import { listenOnLoopback } from "./loopback.js";

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
  const listening = await listenOnLoopback((req, res) => {
    const chunks: Array<Buffer> = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const answer = { method: req.method ?? "", url: req.url ?? "", body: Buffer.concat(chunks).toString("utf8") };
      seen.push(answer);
      res.writeHead(200, { "Content-Type": "application/json" });
      res.end(JSON.stringify(answer));
    });
  });
  return {
    baseURL: listening.url,
    seen,
    close: listening.close,
  };
};
