import { connect, createServer, type Server, type Socket } from "node:net";

/**
 * A loopback TCP proxy in front of a database that a test can take down (refusing new connections and
 * cutting the open ones) and bring back on the same port, to play a database outage; or stall (keeping
 * every connection open but carrying nothing), to play a database that stops answering.
 */
export interface OutageProxy {
  /** `url` with its host and port replaced by the proxy's. */
  readonly url: string;
  /** Stops listening and cuts every open connection. */
  readonly down: () => Promise<void>;
  /** Cuts every open connection, but keeps accepting new ones. */
  readonly cut: () => void;
  /** Listens again on the same port. */
  readonly up: () => Promise<void>;
  /**
   * Carries no more bytes either way on the open connections, and accepts new ones without connecting
   * them through: a database that stops answering without closing anything (a network partition).
   */
  readonly stall: () => void;
  /** Ends a stall: cuts the stalled connections (the partition ends in resets) and carries new ones again. */
  readonly heal: () => void;
}

export const startOutageProxy = async (url: string): Promise<OutageProxy> => {
  const target = new URL(url);
  const targetPort = Number(target.port || 5432);
  const targetHost = target.hostname;
  const sockets = new Set<Socket>();
  let server: Server | undefined;
  let port = 0;
  let stalled = false;

  const track = (socket: Socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  };

  const listen = () =>
    new Promise<void>((resolve, reject) => {
      const next = createServer((client) => {
        track(client);
        client.on("error", () => client.destroy());
        // While stalled, a new connection is held open and never connected through.
        if (stalled) return;
        const upstream = connect(targetPort, targetHost);
        track(upstream);
        for (const socket of [client, upstream])
          socket.on("error", () => {
            client.destroy();
            upstream.destroy();
          });
        client.on("close", () => upstream.destroy());
        upstream.on("close", () => client.destroy());
        // Forwarded chunk by chunk, so that a stall can stop the flow on connections already open.
        client.on("data", (chunk) => {
          if (!stalled) upstream.write(chunk);
        });
        upstream.on("data", (chunk) => {
          if (!stalled) client.write(chunk);
        });
      });
      next.once("error", reject);
      next.listen(port, "127.0.0.1", () => {
        const address = next.address();
        if (typeof address === "object" && address !== null) port = address.port;
        server = next;
        resolve();
      });
    });

  const cut = () => {
    for (const socket of sockets) socket.destroy();
  };

  await listen();
  const proxied = new URL(url);
  proxied.hostname = "127.0.0.1";
  proxied.port = String(port);
  return {
    url: proxied.toString(),
    cut,
    down: async () => {
      const closing = server;
      server = undefined;
      cut();
      if (closing !== undefined) await new Promise<void>((resolve) => closing.close(() => resolve()));
    },
    up: listen,
    stall: () => {
      stalled = true;
    },
    heal: () => {
      stalled = false;
      cut();
    },
  };
};
