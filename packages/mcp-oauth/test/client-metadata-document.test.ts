import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { lookup } from "node:dns";
import { mkdtempSync, readFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { createServer as createTlsServer, type Server as TlsServer } from "node:https";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ALL_SCOPES } from "@mcpsm/domain";
import { authenticateServerToken } from "@mcpsm/domain/mcp";
import { Storage } from "@mcpsm/domain/storage";
import {
  aesGcmCipherLayer,
  createServer as createMcpServerRecord,
  createServerToken,
  hmacPageTokenSignerLayer,
  quotasLayer,
} from "@mcpsm/domain/use-cases";
import { createMcpRuntime, defaultMcpSettings, type McpRuntime } from "@mcpsm/mcp-runtime";
import { makeMemoryStorage } from "@mcpsm/storage-memory";
import { networkPolicy, policyAgent, policyFetch } from "@mcpsm/upstream-http";
import { userAgent } from "@mcpsm/upstream-http/testing";
import { Client, StreamableHTTPClientTransport, UnauthorizedError } from "@modelcontextprotocol/client";
import { Exit, Layer, ManagedRuntime } from "effect";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createMcpAuthorizationServer, type McpAuthorizationServer } from "../src/index.js";
import { CALLBACK, MemoryOAuthClient } from "./support/oauth-user-agent.js";

// docs/api-rules.md §22: a client whose client_id is the https URL of its Client ID Metadata Document, with the
// SDK client's own flow (it skips registration when the metadata says documents are supported). The document
// is served over TLS by a host the test resolves to loopback, which the address policy allows here; it is
// fetched through the policy fetch, size-capped, cached by its Cache-Control, and its redirect URIs bind.

const services = ManagedRuntime.make(
  Layer.mergeAll(
    Layer.succeed(Storage, makeMemoryStorage()),
    aesGcmCipherLayer(new Uint8Array(randomBytes(32))),
    hmacPageTokenSignerLayer(new Uint8Array(randomBytes(32))),
    quotasLayer(),
  ),
);
const run = <A>(effect: unknown) => services.runPromise(effect as never) as Promise<A>;

/** Name resolution sending every host (client.example) to this machine. */
const toLoopback = ((_host: string, options: unknown, callback: (...args: Array<unknown>) => void) =>
  lookup("127.0.0.1", options as never, callback as never)) as unknown as typeof lookup;
let certificate = "";
let docs: TlsServer;
let docsPort = 0;
/** What the document host serves per path, and how often each was fetched. */
const served = new Map<string, { status?: number; body: string; cacheControl?: string }>();
const fetched = new Map<string, number>();
let http: Server;
let base: string;
let as: McpAuthorizationServer;
let runtime: McpRuntime;
let serverId: string;
let serverToken: string;

const docUrl = (path: string) => `https://client.example:${docsPort}${path}`;
const serve = (path: string, document: Record<string, unknown> | string, cacheControl?: string) =>
  served.set(path, {
    body: typeof document === "string" ? document : JSON.stringify({ client_id: docUrl(path), ...document }),
    ...(cacheControl !== undefined ? { cacheControl } : {}),
  });
const metadata = {
  client_name: "Metadata document client",
  redirect_uris: [CALLBACK],
  grant_types: ["authorization_code", "refresh_token"],
  response_types: ["code"],
  token_endpoint_auth_method: "none",
};

beforeAll(async () => {
  // A certificate for client.example, made for this run and trusted by the policy fetch only.
  const dir = mkdtempSync(join(tmpdir(), "cimd-"));
  execFileSync(
    "openssl",
    [
      ...["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-days", "1"],
      ...["-subj", "/CN=client.example", "-addext", "subjectAltName=DNS:client.example"],
      ...["-keyout", join(dir, "key.pem"), "-out", join(dir, "cert.pem")],
    ],
    { stdio: "ignore" },
  );
  const cert = readFileSync(join(dir, "cert.pem"), "utf8");
  docs = createTlsServer({ key: readFileSync(join(dir, "key.pem")), cert }, (req, res) => {
    const path = req.url ?? "/";
    fetched.set(path, (fetched.get(path) ?? 0) + 1);
    const document = served.get(path);
    if (document === undefined) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(document.status ?? 200, {
      "Content-Type": "application/json",
      ...(document.cacheControl !== undefined ? { "Cache-Control": document.cacheControl } : {}),
    });
    res.end(document.body);
  });
  await new Promise<void>((resolve) => docs.listen(0, "127.0.0.1", resolve));
  docsPort = (docs.address() as AddressInfo).port;

  const actor = { tenant: "owner", scopes: new Set(ALL_SCOPES) };
  serverId = (await run<{ id: string }>(createMcpServerRecord(actor, { server: { name: "CIMD server" } }))).id;
  serverToken = (await run<{ value: string }>(createServerToken(actor, { serverId, token: { name: "c" } }))).value;
  http = createServer((req, res) => {
    const path = (req.url ?? "/").split("?")[0] ?? "/";
    if (as.matches(path)) void as.handleNode(req, res);
    else void runtime.handleNode(req, res);
  });
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  // client.example is this machine; the policy allows loopback for this test only.
  certificate = cert;
  const agent = policyAgent({ policy: networkPolicy(["127.0.0.0/8"]), resolve: toLoopback, ca: cert });
  const prefix = `${base}/mcp/`;
  as = await createMcpAuthorizationServer({
    issuer: base,
    serverIdOf: (resource) => (resource.startsWith(prefix) ? resource.slice(prefix.length) || undefined : undefined),
    checkServerToken: async (id, token) => {
      const exit = await services.runPromiseExit(authenticateServerToken(id, token));
      return Exit.isSuccess(exit) ? { tenant: exit.value.tenant, tokenId: exit.value.id } : undefined;
    },
    serverOwner: async () => "owner",
    runner: services,
    cookieKeys: [randomBytes(32).toString("base64url")],
    signingSecrets: [new Uint8Array(randomBytes(32))],
    fetch: policyFetch(agent, { timeoutMs: 5_000, maxResponseBytes: 256 * 1024 }),
  });
  runtime = createMcpRuntime({
    runner: services,
    settings: defaultMcpSettings(),
    listenUrl: base,
    oauth: as.verifier,
    defaultAuthorizationServers: [as.issuer],
    oauthScopes: ["mcp"],
  });
});

afterAll(async () => {
  await runtime?.close();
  http?.closeAllConnections();
  await new Promise<void>((resolve) => (http ? http.close(() => resolve()) : resolve()));
  docs?.closeAllConnections();
  await new Promise<void>((resolve) => (docs ? docs.close(() => resolve()) : resolve()));
  await services.dispose();
});

/** An OAuth client of the SDK's flow whose identity is the metadata document at `url`. */
const documentClient = (url: string) => new MemoryOAuthClient(metadata, url);

/** The person's browser: the consent page, a pasted server token, the redirect to the client. */
const consent = async (authorizationUrl: URL): Promise<Response | URL> => {
  const agent = userAgent(CALLBACK);
  const page = await agent.follow(authorizationUrl.href);
  if (page.url.startsWith(CALLBACK)) return new URL(page.url);
  if (page.res.status !== 200) return page.res;
  const action = /action="([^"]+)"/.exec(await page.res.text())?.[1] ?? "";
  const answer = await agent.follow(new URL(action, page.url).href, {
    method: "POST",
    headers: { "Content-Type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ token: serverToken, decision: "allow" }).toString(),
  });
  return answer.url.startsWith(CALLBACK) ? new URL(answer.url) : answer.res;
};

/** The SDK client's flow up to the authorization URL (it skips registration for a document client). */
const authorize = async (provider: MemoryOAuthClient) => {
  const transport = new StreamableHTTPClientTransport(new URL(`${base}/mcp/${serverId}`), { authProvider: provider });
  await expect(new Client({ name: "cimd-test", version: "1" }).connect(transport)).rejects.toBeInstanceOf(
    UnauthorizedError,
  );
  return { transport, url: provider.authorizationUrl as URL };
};

describe("Client ID Metadata Documents", () => {
  it("the metadata says documents are supported, next to registration", async () => {
    const metadataDoc = (await (await fetch(`${base}/.well-known/oauth-authorization-server`)).json()) as Record<
      string,
      unknown
    >;
    expect(metadataDoc.client_id_metadata_document_supported).toBe(true);
    expect(metadataDoc.registration_endpoint).toBe(`${base}/oauth/register`);
  });

  it("the SDK client's document flow: no registration, consent, a token for its client_id, once fetched", async () => {
    serve("/clients/good.json", metadata, "max-age=600");
    const provider = documentClient(docUrl("/clients/good.json"));
    const { transport, url } = await authorize(provider);
    expect(url.searchParams.get("client_id")).toBe(docUrl("/clients/good.json"));
    const callback = await consent(url);
    expect(callback).toBeInstanceOf(URL);
    await transport.finishAuth((callback as URL).searchParams);
    const claims = JSON.parse(
      Buffer.from((provider.saved?.access_token ?? "").split(".")[1] ?? "", "base64url").toString(),
    );
    expect(claims).toMatchObject({ client_id: docUrl("/clients/good.json"), aud: `${base}/mcp/${serverId}` });
    const client = new Client({ name: "cimd-test", version: "1" });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${base}/mcp/${serverId}`), { authProvider: provider }),
    );
    expect(client.getServerVersion()?.name).toBe("CIMD server");
    await client.close();
    // Authorization and token exchange read the document once: cached for its max-age.
    expect(fetched.get("/clients/good.json")).toBe(1);
    // No registration: the client's id is its document's URL, with no secret.
    expect(provider.info).toEqual({ client_id: docUrl("/clients/good.json"), issuer: base });
  });

  it("a redirect URI the document does not list is refused, never redirected to", async () => {
    serve("/clients/other-redirect.json", { ...metadata, redirect_uris: ["https://elsewhere.example/cb"] });
    const { url } = await authorize(documentClient(docUrl("/clients/other-redirect.json")));
    const answer = await consent(url);
    expect(answer).toBeInstanceOf(Response);
    expect(await (answer as Response).text()).toContain("redirect_uri");
  });

  it("a document over the size cap, or naming another client_id, is refused", async () => {
    serve("/clients/huge.json", { ...metadata, client_name: "x".repeat(6 * 1024) });
    const huge = await consent((await authorize(documentClient(docUrl("/clients/huge.json")))).url);
    expect(await (huge as Response).text()).toContain("invalid_client");
    serve("/clients/liar.json", JSON.stringify({ ...metadata, client_id: "https://someone.example/else.json" }));
    const liar = await consent((await authorize(documentClient(docUrl("/clients/liar.json")))).url);
    expect(await (liar as Response).text()).toMatch(/invalid_client/);
  });

  it("a document on an address the policy refuses is never fetched", async () => {
    serve("/clients/private.json", metadata);
    const strict = await createMcpAuthorizationServer({
      issuer: base,
      serverIdOf: () => serverId,
      checkServerToken: async () => undefined,
      serverOwner: async () => "owner",
      runner: services,
      cookieKeys: [randomBytes(32).toString("base64url")],
      signingSecrets: [new Uint8Array(randomBytes(32))],
      // The default policy: no loopback, and client.example resolves to loopback.
      fetch: policyFetch(policyAgent({ policy: networkPolicy([]), resolve: toLoopback, ca: certificate }), {
        timeoutMs: 5_000,
        maxResponseBytes: 256 * 1024,
      }),
    });
    const strictHttp = createServer((req, res) => void strict.handleNode(req, res));
    await new Promise<void>((resolve) => strictHttp.listen(0, "127.0.0.1", resolve));
    const query = new URLSearchParams({
      client_id: docUrl("/clients/private.json"),
      redirect_uri: CALLBACK,
      response_type: "code",
      scope: "mcp",
      code_challenge: "x".repeat(43),
      code_challenge_method: "S256",
      resource: `${base}/mcp/${serverId}`,
    });
    const answer = await fetch(
      `http://127.0.0.1:${(strictHttp.address() as AddressInfo).port}/oauth/authorize?${query}`,
      {
        redirect: "manual",
      },
    );
    expect(answer.status).toBe(400);
    expect(await answer.text()).toContain("invalid_client");
    expect(fetched.get("/clients/private.json")).toBeUndefined();
    strictHttp.closeAllConnections();
    await new Promise<void>((resolve) => strictHttp.close(() => resolve()));
  });
});
