import { createServer, type IncomingMessage, request, type Server } from "node:http";
import type { AddressInfo } from "node:net";

// A small load balancer on loopback, standing in for a Kubernetes Service / ingress in front of the instances.
// It does what the real deployment relies on and nothing more:
// - round robin over the instances currently "in rotation" (the endpoints of ready pods);
// - an instance is taken out of rotation before it is stopped (Kubernetes removes a terminating pod's
//   endpoint while its preStop hook waits, before SIGTERM: docs/deployment.md, "Rolling updates"); the wait
//   here is `remove`'s promise: it settles when the requests already sent to that instance have settled, so
//   no connection the proxy opened before the removal meets a closing listener (the preStop sleep's job);
// - a request whose connection was refused or reset before any answer came is tried on the next instance,
//   for any method when the refusal happened before the request was written (nothing reached the service),
//   and otherwise only for idempotent methods (as ingress-nginx `proxy_next_upstream error` does).

const IDEMPOTENT = new Set(["GET", "HEAD", "OPTIONS", "PUT", "DELETE"]);

export interface RoundRobinProxy {
  readonly url: string;
  /** Puts `upstream` (a base URL) into rotation under `name`, replacing what was there under that name. */
  readonly add: (name: string, upstream: string) => void;
  /**
   * Takes `name` out of rotation: no new request goes to it. Settles when every request already forwarded to
   * it has settled (the preStop wait of a real deployment).
   */
  readonly remove: (name: string) => Promise<void>;
  /** Requests answered 502 because no instance could take them. */
  readonly failures: () => number;
  /** Requests tried again on another instance. */
  readonly retries: () => number;
  readonly close: () => Promise<void>;
}

type Attempt = { readonly status: number; readonly headers: IncomingMessage["headers"]; readonly body: Buffer };
class UpstreamError extends Error {
  constructor(
    override readonly cause: Error,
    readonly sent: boolean,
  ) {
    super(cause.message);
  }
}

const forward = (upstream: string, incoming: IncomingMessage, body: Buffer): Promise<Attempt> =>
  new Promise((resolve, reject) => {
    let sent = false;
    const outgoing = request(new URL(incoming.url ?? "/", upstream), {
      method: incoming.method,
      headers: { ...incoming.headers, "content-length": String(body.length) },
      agent: false,
    });
    outgoing.on("error", (error) => reject(new UpstreamError(error, sent)));
    outgoing.on("socket", (socket) => socket.once("connect", () => (sent = true)));
    outgoing.on("response", (response) => {
      const chunks: Array<Buffer> = [];
      response.on("data", (chunk: Buffer) => chunks.push(chunk));
      response.on("error", (error) => reject(new UpstreamError(error, true)));
      response.on("end", () =>
        resolve({ status: response.statusCode ?? 502, headers: response.headers, body: Buffer.concat(chunks) }),
      );
    });
    outgoing.end(body);
  });

export const startRoundRobinProxy = async (): Promise<RoundRobinProxy> => {
  const rotation = new Map<string, string>();
  let next = 0;
  let failures = 0;
  let retries = 0;
  /** Forwards in flight, per upstream: what `remove` waits for. */
  const inFlight = new Map<string, Set<Promise<unknown>>>();
  const tracked = <T>(upstream: string, attempt: Promise<T>): Promise<T> => {
    const set = inFlight.get(upstream) ?? new Set<Promise<unknown>>();
    inFlight.set(upstream, set);
    set.add(attempt);
    const forget = () => void set.delete(attempt);
    attempt.then(forget, forget);
    return attempt;
  };
  const server: Server = createServer(async (incoming, outgoing) => {
    const chunks: Array<Buffer> = [];
    for await (const chunk of incoming) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);
    const tries = Math.max(rotation.size, 1) + 1;
    for (let attempt = 0; attempt < tries; attempt++) {
      const upstreams = [...rotation.values()];
      const upstream = upstreams[next++ % Math.max(upstreams.length, 1)];
      if (upstream === undefined) break;
      try {
        const answer = await tracked(upstream, forward(upstream, incoming, body));
        const { connection: _c, "keep-alive": _k, "transfer-encoding": _t, ...headers } = answer.headers;
        outgoing.writeHead(answer.status, { ...headers, "content-length": String(answer.body.length) });
        outgoing.end(answer.body);
        return;
      } catch (error) {
        const retryable = error instanceof UpstreamError && (!error.sent || IDEMPOTENT.has(incoming.method ?? ""));
        if (!retryable) break;
        retries++;
      }
    }
    failures++;
    outgoing.writeHead(502, { "content-type": "text/plain" });
    outgoing.end("no instance answered");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    add: (name, upstream) => void rotation.set(name, upstream),
    remove: async (name) => {
      const upstream = rotation.get(name);
      rotation.delete(name);
      if (upstream === undefined) return;
      await Promise.allSettled([...(inFlight.get(upstream) ?? [])]);
    },
    failures: () => failures,
    retries: () => retries,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
};
