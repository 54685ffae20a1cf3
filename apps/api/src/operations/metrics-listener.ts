import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Registry } from "prom-client";

/**
 * The Prometheus scrape endpoint on its own listener (METRICS_PORT), so metrics are never exposed on the
 * API's port and a scrape needs no token: `GET /metrics` in the text format; anything else 404 or 405.
 */
export const startMetricsListener = async (registry: Registry, host: string, port: number) => {
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? "").split("?")[0];
    if (path !== "/metrics") {
      res.writeHead(404, { "Content-Type": "text/plain; charset=utf-8" }).end("not found\n");
      return;
    }
    if (req.method !== "GET" && req.method !== "HEAD") {
      res.writeHead(405, { Allow: "GET, HEAD", "Content-Type": "text/plain; charset=utf-8" }).end();
      return;
    }
    registry.metrics().then(
      (text) => {
        res.writeHead(200, { "Content-Type": registry.contentType, "Cache-Control": "no-store" });
        res.end(req.method === "HEAD" ? undefined : text);
      },
      () => res.writeHead(500, { "Content-Type": "text/plain; charset=utf-8" }).end("metrics unavailable\n"),
    );
  });
  server.listen(port, host);
  await new Promise<void>((resolve, reject) => {
    server.once("listening", resolve);
    server.once("error", reject);
  });
  const address = server.address() as AddressInfo;
  return {
    url: `http://${host.includes(":") ? `[${host}]` : host}:${address.port}/metrics`,
    close: () => new Promise<void>((done) => server.close(() => done())),
  };
};
