import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { createLocalJWKSet, type JWK, jwtVerify } from "jose";

// The protected upstream API: verifies the bearer token it is sent (signature with the authorization server's
// key, issuer, audience, expiry, and the scope each route needs) and answers 401 otherwise. `reject` makes it
// refuse a token it would accept (as an API that revoked it), to exercise the refresh after a 401.

export interface Upstream {
  readonly baseURL: string;
  /** Every bearer token presented, in order. */
  readonly seen: Array<string>;
  /** Tokens refused although valid (revoked upstream). */
  readonly rejected: Set<string>;
  /** When true, every token is refused (an API that revoked the client). */
  refuseAll: boolean;
  readonly close: () => Promise<void>;
}

const ROUTES: Record<string, string> = {
  "GET /api/items": "items:read",
  "POST /api/items": "items:write",
  "GET /api/admin": "admin",
};

export const startUpstream = async (issuer: string, audience: string, publicJwk: JWK): Promise<Upstream> => {
  const keys = createLocalJWKSet({ keys: [publicJwk] });
  const seen: Array<string> = [];
  const rejected = new Set<string>();
  const state = { refuseAll: false };
  const server: Server = createServer((req, res) => {
    void (async () => {
      const route = `${req.method} ${new URL(req.url ?? "/", "http://x").pathname}`;
      const needed = ROUTES[route];
      const deny = (status: number, why: string) => {
        res.writeHead(status, { "Content-Type": "application/json", "WWW-Authenticate": `Bearer error="${why}"` });
        res.end(JSON.stringify({ error: why }));
      };
      if (needed === undefined) return deny(404, "not_found");
      const header = req.headers.authorization ?? "";
      const token = header.startsWith("Bearer ") ? header.slice(7) : "";
      seen.push(token);
      if (token === "" || rejected.has(token) || state.refuseAll) return deny(401, "invalid_token");
      try {
        const { payload } = await jwtVerify(token, keys, { issuer, audience, requiredClaims: ["exp"] });
        const scopes = String(payload.scope ?? "").split(" ");
        if (!scopes.includes(needed)) return deny(403, "insufficient_scope");
        res.writeHead(200, { "Content-Type": "application/json" });
        res.end(
          JSON.stringify({
            ok: true,
            route,
            sub: payload.sub ?? null,
            client: payload.client_id ?? null,
            scope: payload.scope,
          }),
        );
      } catch {
        return deny(401, "invalid_token");
      }
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    baseURL: `http://127.0.0.1:${(server.address() as AddressInfo).port}/api`,
    seen,
    rejected,
    get refuseAll() {
      return state.refuseAll;
    },
    set refuseAll(value: boolean) {
      state.refuseAll = value;
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
};
