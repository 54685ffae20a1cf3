import { randomBytes, randomUUID } from "node:crypto";
import { Storage } from "@mcpsm/domain/storage";
import { makeMemoryStorage } from "@mcpsm/storage-memory";
import { makePostgresStorage } from "@mcpsm/storage-postgres";
import { createServerDatabase } from "@mcpsm/storage-postgres/testing";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { Layer } from "effect";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_SECURITY_SETTINGS } from "../src/config/security-config.js";
import { type EchoUpstream, startEchoUpstream } from "./support/echo-upstream.js";
import { clientFor, startTestService, type Tenant, type TestService } from "./support/harness.js";

// docs/api-rules.md §20 across instances (issue 29): two services on one store (PostgreSQL when
// API_TEST_STORAGE=postgres, else one in-memory store; both on the Redis of TEST_REDIS_URL when set, as
// deployed). A call asked on B and approved on A runs on B's retry at once (the approval is read from the
// store on every call, no cache in between); an approval is used once even when retries race on A and B;
// a denial on A answers B's caller.

const onPostgres = process.env.API_TEST_STORAGE === "postgres";
const redisUrl = process.env.TEST_REDIS_URL ?? "";
const encryptionKey = new Uint8Array(randomBytes(32));

let shared: Layer.Layer<Storage>;
let dispose: () => Promise<void> = async () => {};
let a: TestService;
let b: TestService;
let upstream: EchoUpstream;
let owner: Tenant;
const ids = { server: "", token: "" };

beforeAll(async () => {
  if (onPostgres) {
    const database = await createServerDatabase(process.env.TEST_DATABASE_URL ?? "");
    const postgres = await makePostgresStorage({ url: database.url, poolSize: 4 });
    await postgres.migrate();
    shared = postgres.layer;
    dispose = async () => {
      await postgres.close();
      await database.dispose();
    };
  } else shared = Layer.succeed(Storage, makeMemoryStorage());
  upstream = await startEchoUpstream();
  const options = {
    ownStorage: shared,
    encryptionKey,
    mcp: { upstreamAllowedNetworks: ["127.0.0.0/8"] },
    ...(redisUrl === ""
      ? {}
      : {
          security: {
            rateLimit: {
              ...DEFAULT_SECURITY_SETTINGS.rateLimit,
              enabled: false,
              redisUrl,
              keyPrefix: `mcpsm-test-${randomUUID()}`,
            },
          },
        }),
  };
  a = await startTestService(options);
  b = await startTestService(options);
  owner = await a.tenant("approvals-instances");
  const provider = await owner.api.post("/providers", { provider: { name: "Things", baseURL: upstream.baseURL } });
  await owner.api.post(`/providers/${provider.body.provider.id}/tools`, {
    tool: {
      name: "deleteThing",
      method: "DELETE",
      path: "/things",
      queryArgsJSONSchema: { type: "object", properties: { id: { type: "string" } } },
    },
  });
  const server = await owner.api.post("/servers", {
    server: { name: "Guarded", approvalPolicy: "DESTRUCTIVE", providers: [{ id: provider.body.provider.id }] },
  });
  ids.server = server.body.server.id;
  ids.token = (await owner.api.post(`/servers/${ids.server}/tokens`, { token: { name: "a" } })).body.token.value;
});

afterAll(async () => {
  await a?.close();
  await b?.close();
  await upstream?.close();
  await dispose();
});

const connect = async (svc: TestService, onUrl?: (url: string) => Promise<void>) => {
  const client = new Client(
    { name: "approval-instances-test", version: "1" },
    {
      versionNegotiation: { mode: { pin: "2026-07-28" } },
      ...(onUrl === undefined ? {} : { capabilities: { elicitation: { url: {} } } }),
    },
  );
  if (onUrl !== undefined)
    client.setRequestHandler("elicitation/create", async (request) => {
      await onUrl(String((request.params as { url?: string }).url));
      return { action: "accept" };
    });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${svc.url}/mcp/${ids.server}`), {
      requestInit: { headers: { Authorization: `Bearer ${ids.token}` } },
    }),
  );
  return client;
};

const textOf = (result: { content?: unknown }) => String((result.content as Array<{ text?: string }>)[0]?.text);
const approvalIdIn = (text: string) => /\/approvals\/([A-Za-z0-9]{11})/.exec(text)?.[1] as string;
const del = (id: string) => ({ name: "deleteThing", arguments: { queryArgs: { id } } });
const ran = (id: string) => upstream.seen.filter((seen) => seen.url === `/things?id=${id}`).length;

/** The owner's management client on instance B (the dev-auth key is per instance; the tenant is the same). */
const ownerOnB = async () => clientFor(b.url, await b.token(owner.id));

describe("approval across two instances", () => {
  it("a call waiting on B (URL elicitation) runs once a person approves on A's page, without delay", async () => {
    let decidedAt = 0;
    const client = await connect(b, async (url) => {
      expect(url.startsWith(`${b.url}/approvals/`)).toBe(true);
      const onA = url.replace(b.url, a.url);
      const shown = await fetch(onA);
      expect(shown.status).toBe(200);
      const csrf = /name="csrf" value="([^"]+)"/.exec(await shown.text())?.[1] as string;
      const cookie = (shown.headers.get("set-cookie") ?? "").split(";")[0] as string;
      const sent = await fetch(onA, {
        method: "POST",
        headers: { "Content-Type": "application/x-www-form-urlencoded", Cookie: cookie },
        body: `csrf=${csrf}&decision=APPROVE`,
      });
      expect(sent.status).toBe(200);
      decidedAt = performance.now();
    });
    try {
      const result = await client.callTool(del("page"));
      const seenAfterMs = performance.now() - decidedAt;
      console.log(`[approval instances] decision on A → retry answered on B: ${seenAfterMs.toFixed(1)} ms`);
      expect(result.isError ?? false, textOf(result)).toBe(false);
      expect(ran("page")).toBe(1);
      // The brief's bound: B sees A's decision within one second (here: on the very next request).
      expect(seenAfterMs).toBeLessThan(1000);
    } finally {
      await client.close();
    }
  });

  it("approved through A's API, the retry on B runs once; racing retries on A and B run it once", async () => {
    const onB = await connect(b);
    const onA = await connect(a);
    try {
      const asked = await onB.callTool(del("api"));
      const id = approvalIdIn(textOf(asked));
      expect((await (await ownerOnB()).get("/approvals")).body.approvals.map((x: { id: string }) => x.id)).toContain(
        id,
      );
      expect((await owner.api.post(`/approvals/${id}/decision`, { decision: "APPROVE" })).status).toBe(200);
      expect((await onB.callTool(del("api"))).isError ?? false).toBe(false);
      expect(ran("api")).toBe(1);
      const replay = await onA.callTool(del("api"));
      expect(replay.isError).toBe(true);

      const raced = approvalIdIn(textOf(await onA.callTool(del("race"))));
      expect((await (await ownerOnB()).post(`/approvals/${raced}/decision`, { decision: "APPROVE" })).status).toBe(200);
      const results = await Promise.all([onA.callTool(del("race")), onB.callTool(del("race"))]);
      expect(results.filter((r) => r.isError !== true)).toHaveLength(1);
      expect(ran("race")).toBe(1);
    } finally {
      await onA.close();
      await onB.close();
    }
  });

  it("a denial on A answers the caller on B, and nothing runs", async () => {
    const onB = await connect(b);
    try {
      const id = approvalIdIn(textOf(await onB.callTool(del("deny"))));
      expect((await owner.api.post(`/approvals/${id}/decision`, { decision: "DENY" })).status).toBe(200);
      const denied = await onB.callTool(del("deny"));
      expect(denied.isError).toBe(true);
      expect(textOf(denied)).toContain("denied");
      expect(ran("deny")).toBe(0);
    } finally {
      await onB.close();
    }
  });
});
