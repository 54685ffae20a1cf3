import type { IncomingMessage, ServerResponse } from "node:http";
import { listenOnLoopback } from "./loopback.js";

/**
 * A REST upstream on loopback behaving as the conformance suite's task fixtures require, each operation
 * through `202 Accepted` + `Operation-Location` (docs/api-rules.md §22):
 * - `GET /greet?name=X` answers `Hello, X!` as text at once (`greet`, a synchronous tool);
 * - `POST /compute?seconds=N` answers at once when N is 0, else 202 and its status 202 until N seconds have
 *   passed, then 200 (`slow_compute`);
 * - `POST /failing` answers 202 and its status 500 (`failing_job`: a tool error);
 * - `POST /progress` answers 202 and its status 202 for three looks, then 200 (`test_tool_with_progress`).
 * `looks` counts the status requests of each operation.
 */
export const startTaskFixtureUpstream = async () => {
  type Operation = { readonly kind: "compute" | "failing" | "progress"; readonly until: number; looks: number };
  const operations = new Map<string, Operation>();
  let next = 0;
  const json = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
    res.writeHead(status, { "Content-Type": "application/json", ...headers });
    res.end(JSON.stringify(body));
  };
  const accept = (res: ServerResponse, operation: Operation) => {
    const id = `op${++next}`;
    operations.set(id, operation);
    json(res, 202, { status: "Running" }, { "Operation-Location": `/operations/${id}` });
  };
  const look = (res: ServerResponse, operation: Operation) => {
    operation.looks++;
    if (operation.kind === "failing") return json(res, 500, { error: "the job failed" });
    const running = operation.kind === "progress" ? operation.looks <= 3 : Date.now() < operation.until;
    if (running) return json(res, 202, { status: "Running" });
    json(res, 200, { status: "Succeeded", value: 42 });
  };
  const route = (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? "/", "http://upstream");
    if (req.method === "GET" && url.pathname === "/greet") {
      res.writeHead(200, { "Content-Type": "text/plain" });
      return res.end(`Hello, ${url.searchParams.get("name") ?? "there"}!`);
    }
    if (req.method === "POST" && url.pathname === "/compute") {
      const seconds = Number(url.searchParams.get("seconds") ?? "0");
      if (seconds === 0) return json(res, 200, { status: "Succeeded", value: 42 });
      return accept(res, { kind: "compute", until: Date.now() + seconds * 1000, looks: 0 });
    }
    if (req.method === "POST" && url.pathname === "/failing")
      return accept(res, { kind: "failing", until: 0, looks: 0 });
    if (req.method === "POST" && url.pathname === "/progress")
      return accept(res, { kind: "progress", until: 0, looks: 0 });
    const operation = url.pathname.startsWith("/operations/") ? operations.get(url.pathname.slice(12)) : undefined;
    if (req.method === "GET" && operation !== undefined) return look(res, operation);
    json(res, 404, { error: "not found" });
  };
  const listening = await listenOnLoopback((req, res) => {
    req.resume();
    req.on("end", () => route(req, res));
  });
  return {
    url: listening.url,
    operations,
    close: listening.close,
  };
};
