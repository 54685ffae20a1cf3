import { request } from "node:http";
import { listenOnLoopback } from "./support/loopback.js";

/**
 * A small local proxy for clients that cannot send an Authorization header (the conformance suite): forwards
 * every request to `target` unchanged — Host included, so DNS-rebinding checks judge what the client sent —
 * adding `Authorization: Bearer <token>`.
 */
export const startBearerProxy = async (target: string, token: string) => {
  const upstream = new URL(target);
  const listening = await listenOnLoopback((req, res) => {
    const forwarded = request(
      {
        host: upstream.hostname,
        port: upstream.port,
        method: req.method,
        path: req.url,
        headers: { ...req.headers, authorization: `Bearer ${token}` },
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    forwarded.on("error", () => {
      if (!res.headersSent) res.writeHead(502);
      res.end();
    });
    req.pipe(forwarded);
  });
  return {
    url: listening.url,
    close: listening.close,
  };
};
