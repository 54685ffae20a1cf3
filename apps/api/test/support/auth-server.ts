import { randomUUID } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { exportJWK, generateKeyPair, type JWK, type JWTPayload, SignJWT } from "jose";
import { listenOnLoopback } from "./loopback.js";

// A stand-in authorization server on 127.0.0.1 for the JWKS and introspection tests: it publishes a key set
// that a test can rotate, signs tokens, answers RFC 7662 introspection with whatever a test scripted, checks
// the client credentials (client_secret_basic), counts every request, and can go down.

export interface SigningKey {
  readonly kid: string;
  readonly privateKey: Awaited<ReturnType<typeof generateKeyPair>>["privateKey"];
  readonly publicJwk: JWK;
}

export const signingKey = async (kid: string = randomUUID()): Promise<SigningKey> => {
  const { privateKey, publicKey } = await generateKeyPair("ES256", { extractable: true });
  return { kid, privateKey, publicJwk: { ...(await exportJWK(publicKey)), kid, alg: "ES256", use: "sig" } };
};

/** What the introspection endpoint answers for a token: a JSON body, or a raw status/body of a broken server. */
export type IntrospectionScript =
  | { readonly json: unknown }
  | { readonly status: number; readonly body: string; readonly type?: string }
  | { readonly delayMs: number; readonly json: unknown };

export interface AuthServer {
  readonly url: string;
  readonly jwksUrl: string;
  readonly introspectionUrl: string;
  readonly issuer: string;
  /** Keys published at jwksUrl (replace to rotate). */
  keys: Array<SigningKey>;
  /** Introspection answers by token; unknown tokens answer `{"active": false}`. */
  readonly answers: Map<string, IntrospectionScript>;
  /** Requests seen, by path. */
  readonly hits: { jwks: number; introspection: number; byToken: Map<string, number> };
  /** The Authorization headers the introspection endpoint received. */
  readonly authorizations: Array<string>;
  /** Answer 503 to everything while true. */
  down: boolean;
  /** When set, the key set endpoint answers this instead of the keys. */
  jwksAnswer: { readonly status: number; readonly body: string; readonly type?: string } | undefined;
  readonly sign: (key: SigningKey, claims: JWTPayload) => Promise<string>;
  readonly close: () => Promise<void>;
}

export interface AuthServerOptions {
  readonly clientId?: string;
  readonly clientSecret?: string;
}

const readBody = (req: IncomingMessage) =>
  new Promise<string>((resolve) => {
    const chunks: Array<Buffer> = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
  });

export const startAuthServer = async (options: AuthServerOptions = {}): Promise<AuthServer> => {
  const formEncode = (v: string) => encodeURIComponent(v).replace(/%20/g, "+");
  const expectedBasic =
    options.clientId === undefined
      ? undefined
      : `Basic ${Buffer.from(`${formEncode(options.clientId)}:${formEncode(options.clientSecret ?? "")}`).toString("base64")}`;
  const state = {
    keys: [] as Array<SigningKey>,
    down: false,
    jwksAnswer: undefined as AuthServer["jwksAnswer"],
  };
  const answers = new Map<string, IntrospectionScript>();
  const hits = { jwks: 0, introspection: 0, byToken: new Map<string, number>() };
  const authorizations: Array<string> = [];
  const send = (res: ServerResponse, status: number, body: string, type = "application/json") => {
    res.writeHead(status, { "content-type": type });
    res.end(body);
  };
  const handler = async (req: IncomingMessage, res: ServerResponse) => {
    const path = new URL(req.url ?? "/", "http://x").pathname;
    if (path === "/jwks.json") hits.jwks++;
    if (state.down) return send(res, 503, "{}");
    if (path === "/jwks.json" && state.jwksAnswer !== undefined)
      return send(res, state.jwksAnswer.status, state.jwksAnswer.body, state.jwksAnswer.type);
    if (path === "/jwks.json") return send(res, 200, JSON.stringify({ keys: state.keys.map((k) => k.publicJwk) }));
    if (path === "/introspect" && req.method === "POST") {
      hits.introspection++;
      authorizations.push(req.headers.authorization ?? "");
      const form = new URLSearchParams(await readBody(req));
      const token = form.get("token") ?? "";
      hits.byToken.set(token, (hits.byToken.get(token) ?? 0) + 1);
      if (expectedBasic !== undefined && req.headers.authorization !== expectedBasic)
        return send(res, 401, JSON.stringify({ error: "invalid_client" }));
      const script = answers.get(token) ?? { json: { active: false } };
      if ("status" in script) return send(res, script.status, script.body, script.type);
      if ("delayMs" in script) await new Promise((r) => setTimeout(r, script.delayMs));
      return send(res, 200, JSON.stringify(script.json));
    }
    return send(res, 404, "{}");
  };
  const listening = await listenOnLoopback((req, res) => void handler(req, res));
  const url = listening.url;
  return {
    url,
    jwksUrl: `${url}/jwks.json`,
    introspectionUrl: `${url}/introspect`,
    issuer: url,
    get keys() {
      return state.keys;
    },
    set keys(keys) {
      state.keys = keys;
    },
    answers,
    hits,
    authorizations,
    get jwksAnswer() {
      return state.jwksAnswer;
    },
    set jwksAnswer(value) {
      state.jwksAnswer = value;
    },
    get down() {
      return state.down;
    },
    set down(value) {
      state.down = value;
    },
    sign: (key, claims) =>
      new SignJWT(claims).setProtectedHeader({ alg: "ES256", kid: key.kid, typ: "at+jwt" }).sign(key.privateKey),
    close: listening.close,
  };
};
