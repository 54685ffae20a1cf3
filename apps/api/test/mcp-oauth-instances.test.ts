import { randomBytes } from "node:crypto";
import { Storage } from "@mcpsm/domain/storage";
import { makeMemoryStorage } from "@mcpsm/storage-memory";
import { makePostgresStorage, type PostgresStorage } from "@mcpsm/storage-postgres";
import { createServerDatabase } from "@mcpsm/storage-postgres/testing";
import {
  Client,
  type OAuthClientProvider,
  StreamableHTTPClientTransport,
  UnauthorizedError,
} from "@modelcontextprotocol/client";
import { Layer, Option } from "effect";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestService, type Tenant, type TestService } from "./support/harness.js";
import { consentWithServerToken } from "./support/oauth-user-agent.js";
import { expectStatus } from "./support/problems.js";

// Issue 16: the service's own authorization server keeps its state in the store and derives its signing key
// from ENCRYPTION_KEY, so instances behind one public URL are one authorization server: a client registered
// and authorized on instance A has its token accepted and refreshed by instance B on the same database, and
// by an instance started after A stopped (a restart). Revoking the server token pasted at consent (on A)
// ends the grant everywhere. The store is PostgreSQL when API_TEST_STORAGE=postgres (a database of its own,
// shared by the instances), else one in-memory store shared by the instances of this process.

const onPostgres = process.env.API_TEST_STORAGE === "postgres";
const encryptionKey = new Uint8Array(randomBytes(32));
const redirect = "http://127.0.0.1:1/callback";

let shared: Layer.Layer<Storage>;
let dispose: () => Promise<void> = async () => {};
const running: Array<TestService> = [];

beforeAll(async () => {
  if (onPostgres) {
    const database = await createServerDatabase(process.env.TEST_DATABASE_URL ?? "");
    const postgres: PostgresStorage = await makePostgresStorage({ url: database.url, poolSize: 4 });
    await postgres.migrate();
    shared = postgres.layer;
    dispose = async () => {
      await postgres.close();
      await database.dispose();
    };
  } else shared = Layer.succeed(Storage, makeMemoryStorage());
});

afterAll(async () => {
  for (const svc of running.splice(0)) await svc.close();
  await dispose();
});

/** An instance on the shared store; `publicUrl` is the URL all instances answer for (the load balancer's). */
const instance = async (publicUrl?: string) => {
  const svc = await startTestService({
    ownStorage: shared,
    encryptionKey,
    ...(publicUrl === undefined ? {} : { mcp: { publicUrl: Option.some(new URL(publicUrl)) } }),
  });
  running.push(svc);
  return svc;
};

const stop = async (svc: TestService) => {
  running.splice(running.indexOf(svc), 1);
  await svc.close();
};

/** An MCP host's OAuth state for one server. */
const oauthClient = () => {
  const state: {
    info?: Parameters<NonNullable<OAuthClientProvider["saveClientInformation"]>>[0];
    tokens?: Parameters<OAuthClientProvider["saveTokens"]>[0];
    verifier: string;
    url?: URL;
  } = { verifier: "" };
  const provider: OAuthClientProvider = {
    redirectUrl: redirect,
    clientMetadata: { client_name: "SDK", redirect_uris: [redirect], token_endpoint_auth_method: "none" },
    clientInformation: () => state.info,
    saveClientInformation: (info) => {
      state.info = info;
    },
    tokens: () => state.tokens,
    saveTokens: (tokens) => {
      state.tokens = tokens;
    },
    redirectToAuthorization: (url) => {
      state.url = url;
    },
    saveCodeVerifier: (verifier) => {
      state.verifier = verifier;
    },
    codeVerifier: () => state.verifier,
  };
  return { state, provider };
};

/** The SDK client's whole flow against `base`, consenting with `serverToken`. */
const authorize = async (base: string, serverId: string, serverToken: string) => {
  const client = oauthClient();
  const transport = new StreamableHTTPClientTransport(new URL(`${base}/mcp/${serverId}`), {
    authProvider: client.provider,
  });
  await expect(new Client({ name: "sdk", version: "1" }).connect(transport)).rejects.toBeInstanceOf(UnauthorizedError);
  const landed = await consentWithServerToken(client.state.url?.href ?? "", serverToken, redirect);
  await transport.finishAuth(new URL(landed.url).searchParams);
  expect(client.state.tokens?.refresh_token).toBeTruthy();
  return client;
};

/** The server's name as `base` serves it to the client's current access token (it fails with a 401). */
const serverNameAt = async (base: string, serverId: string, client: ReturnType<typeof oauthClient>) => {
  const mcp = new Client({ name: "sdk", version: "1" });
  await mcp.connect(
    new StreamableHTTPClientTransport(new URL(`${base}/mcp/${serverId}`), { authProvider: client.provider }),
  );
  const name = mcp.getServerVersion()?.name;
  await mcp.close();
  return name;
};

const ping = (base: string, serverId: string, accessToken: string) =>
  fetch(`${base}/mcp/${serverId}`, {
    method: "POST",
    headers: {
      Authorization: `Bearer ${accessToken}`,
      "Content-Type": "application/json",
      Accept: "application/json, text/event-stream",
    },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }),
  });

const refreshAt = async (base: string, client: ReturnType<typeof oauthClient>) => {
  const res = await fetch(`${base}/oauth/token`, {
    method: "POST",
    headers: { "Content-Type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({
      grant_type: "refresh_token",
      refresh_token: client.state.tokens?.refresh_token ?? "",
      client_id: client.state.info?.client_id ?? "",
    }).toString(),
  });
  if (res.status === 200) client.state.tokens = (await res.json()) as NonNullable<typeof client.state.tokens>;
  return res;
};

describe(`instances sharing ${onPostgres ? "a PostgreSQL database" : "one store"}`, () => {
  let a: TestService;
  let owner: Tenant;
  let serverId: string;

  const mintToken = async (name: string) => {
    const minted = await owner.api.post(`/servers/${serverId}/tokens`, { token: { name } });
    expectStatus(minted, 201);
    return minted.body.token as { id: string; value: string };
  };

  beforeAll(async () => {
    a = await instance();
    owner = await a.tenant("oauth-instances");
    const server = await owner.api.post("/servers", { server: { name: "Shared OAuth" } });
    expectStatus(server, 201);
    serverId = server.body.server.id;
  });

  it("a client authorized on A is served and refreshed by B, and by an instance started after A stopped", async () => {
    const b = await instance(a.url);
    const client = await authorize(a.url, serverId, (await mintToken("consent")).value);
    expect(await serverNameAt(a.url, serverId, client)).toBe("Shared OAuth");
    // B never saw this client: its registration, grant and refresh token come from the store.
    expect(await serverNameAt(b.url, serverId, client)).toBe("Shared OAuth");
    const first = client.state.tokens?.access_token;
    expect((await refreshAt(b.url, client)).status).toBe(200);
    expect(client.state.tokens?.access_token).not.toBe(first);
    expect((await ping(a.url, serverId, client.state.tokens?.access_token ?? "")).status).toBe(200);

    // A restart: A stops, a new instance answers for the same public URL with nothing but the store and key.
    const publicUrl = a.url;
    const revoker = await mintToken("revoked later");
    const doomed = await authorize(a.url, serverId, revoker.value);
    const revoked = await owner.api.delete(`/servers/${serverId}/tokens/${revoker.id}`);
    expectStatus(revoked, 204);
    // The grant made with the revoked token is gone on B at once: its access token and its refresh token.
    expect((await ping(b.url, serverId, doomed.state.tokens?.access_token ?? "")).status).toBe(401);
    expect((await refreshAt(b.url, doomed)).status).toBe(400);

    await stop(a);
    const c = await instance(publicUrl);
    expect(await serverNameAt(c.url, serverId, client)).toBe("Shared OAuth");
    expect((await refreshAt(c.url, client)).status).toBe(200);
    expect((await ping(c.url, serverId, client.state.tokens?.access_token ?? "")).status).toBe(200);
    expect((await ping(c.url, serverId, doomed.state.tokens?.access_token ?? "")).status).toBe(401);
  });
});
