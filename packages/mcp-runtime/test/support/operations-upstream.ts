import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/** One look at an operation's status URL as the upstream saw it. */
export interface SeenLook {
  readonly path: string;
  readonly apiKey: string | undefined;
}

export interface OperationsUpstream {
  readonly url: string;
  readonly port: number;
  /** Every request, in order: `METHOD path`. */
  readonly requests: Array<string>;
  /** Looks at status URLs (`/ops/...`), in order. */
  readonly looks: Array<SeenLook>;
  readonly close: () => Promise<void>;
}

const header = (req: IncomingMessage, name: string) => {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
};

/**
 * A REST upstream with long-running operations (docs/api-rules.md §22): `POST /jobs/{n}` answers 202 with an
 * `Operation-Location` whose status answers 202 `n` times, then `{"status":"Running"}` once, then 200 with the
 * job; `POST /failing` → a status that answers 500; `POST /forever` → a status that never finishes;
 * `POST /elsewhere` → a status URL on another host; `GET /stream` → `text/event-stream` (three events, the
 * last JSON); `GET /text-stream` → events of plain text.
 */
export const startOperationsUpstream = async (): Promise<OperationsUpstream> => {
  const requests: Array<string> = [];
  const looks: Array<SeenLook> = [];
  const left = new Map<string, number>();
  let next = 0;
  const server: Server = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      const path = new URL(req.url ?? "/", "http://upstream").pathname.replace(/^\/api(?=\/)/, "");
      requests.push(`${req.method} ${path}`);
      const json = (status: number, body: unknown, headers: Record<string, string> = {}) => {
        res.writeHead(status, { "Content-Type": "application/json", ...headers });
        res.end(JSON.stringify(body));
      };
      const jobs = /^\/jobs\/(\d+)$/.exec(path);
      if (req.method === "POST" && jobs !== null) {
        const id = `op${++next}`;
        left.set(id, Number(jobs[1]));
        return json(202, { id, status: "Accepted" }, { "Operation-Location": `/api/ops/${id}`, "Retry-After": "0" });
      }
      if (req.method === "POST" && path === "/failing")
        return json(202, {}, { Location: `http://localhost:${port}/api/ops/failing` });
      if (req.method === "POST" && path === "/forever") return json(202, {}, { Location: "/api/ops/forever" });
      if (req.method === "POST" && path === "/elsewhere")
        return json(202, { queued: true }, { Location: "http://example.invalid/ops/1" });
      if (path.startsWith("/ops/")) {
        const id = path.slice("/ops/".length);
        looks.push({ path, apiKey: header(req, "x-api-key") });
        if (id === "failing") return json(500, { error: "the job crashed" });
        if (id === "forever") return json(202, { status: "Running" });
        const remaining = left.get(id) ?? 0;
        left.set(id, remaining - 1);
        if (remaining > 0) return json(202, { status: "Running" }, { Location: `/api/ops/${id}` });
        if (remaining === 0) return json(200, { status: "Running" });
        return json(200, { id, status: "Succeeded", output: { size: 42 } });
      }
      if (path === "/stream" || path === "/text-stream") {
        res.writeHead(200, { "Content-Type": "text/event-stream" });
        const last = path === "/stream" ? '{"total":3,"ok":true}' : "third line";
        res.write("event: progress\ndata: first step\n\n");
        res.write("data: second step\n\n");
        res.end(`data: ${last}\n\n`);
        return;
      }
      json(404, { error: "no such path" });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    requests,
    looks,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
};
