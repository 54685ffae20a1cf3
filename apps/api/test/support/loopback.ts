import { createServer, type RequestListener, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/** A node:http server listening on 127.0.0.1 at a port the system chose. */
export interface Loopback {
  readonly server: Server;
  readonly port: number;
  /** `http://127.0.0.1:<port>`, no trailing slash. */
  readonly url: string;
  /** Drops the open connections (keep-alive ones would hold close() up) and closes the server. */
  readonly close: () => Promise<void>;
}

/**
 * Listens with `server` (or a new server answering with `handler`) on 127.0.0.1, port 0: the upstreams,
 * authorization servers and hosts the tests stand up are all reached this way.
 */
export const listenOnLoopback = async (serverOrHandler: Server | RequestListener): Promise<Loopback> => {
  const server = typeof serverOrHandler === "function" ? createServer(serverOrHandler) : serverOrHandler;
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    server,
    port,
    url: `http://127.0.0.1:${port}`,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
};
