import { randomBytes } from "node:crypto";
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { oauthServerRecordId, Storage } from "@mcpsm/domain/storage";
import { aesGcmCipherLayer } from "@mcpsm/domain/use-cases";
import { makeMemoryStorage } from "@mcpsm/storage-memory";
import { Layer, ManagedRuntime } from "effect";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_REGISTRATION_LIMITS, registrationGate } from "../src/registration-limits.js";
import { oauthRecords, storageAdapter } from "../src/storage-adapter.js";

// Issue 24: anonymous client registration is bounded in size, in redirect URIs, in rate, and a client never
// used expires.

let clock = 0;
let http: Server;
let base: string;
let admitted: Array<string> = [];

beforeAll(async () => {
  const gate = registrationGate(
    { ...DEFAULT_REGISTRATION_LIMITS, perAddressPerHour: 3, perHour: 4 },
    (req) => String(req.headers["x-test-address"]),
    () => clock,
  );
  http = createServer(async (req, res) => {
    if (!(await gate(req, res))) return;
    admitted.push(String((req as IncomingMessage & { body?: Buffer }).body));
    res.writeHead(201, { "content-type": "application/json" });
    res.end("{}");
  });
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
});

afterAll(async () => {
  http?.closeAllConnections();
  await new Promise<void>((resolve) => http?.close(() => resolve()));
});

const register = async (metadata: unknown, address = "198.51.100.1") => {
  const res = await fetch(`${base}/oauth/register`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-test-address": address },
    body: typeof metadata === "string" ? metadata : JSON.stringify(metadata),
  });
  const body = (await res.json()) as { error?: string; error_description?: string };
  return { status: res.status, retryAfter: res.headers.get("retry-after"), body };
};

describe("POST /oauth/register is bounded", () => {
  it("refuses more redirect URIs than allowed, and redirects that are not https or loopback http", async () => {
    const many = await register({ redirect_uris: Array.from({ length: 11 }, (_, i) => `https://c.example/${i}`) });
    expect(many).toMatchObject({
      status: 400,
      body: { error: "invalid_redirect_uri", error_description: expect.stringContaining("at most 10 redirect URIs") },
    });
    for (const uri of ["http://attacker.example/cb", "javascript:alert(1)", "https://c.example/cb#x", "nope"])
      expect((await register({ redirect_uris: [uri] }, "198.51.100.9")).status, uri).toBe(400);
    for (const uri of ["https://c.example/cb", "http://127.0.0.1:3000/cb", "http://[::1]/cb", "http://localhost/cb"])
      expect((await register({ redirect_uris: [uri] }, `203.0.113.${uri.length}`)).status, uri).toBe(201);
    expect(admitted.at(-1)).toContain("http://localhost/cb");
  });

  it("refuses a registration larger than its byte limit with 413", async () => {
    const big = await register({ client_name: "x".repeat(9 * 1024), redirect_uris: ["https://c.example/cb"] });
    expect(big).toMatchObject({ status: 413, body: { error_description: "a registration may be at most 8192 bytes" } });
  });

  it("limits registrations per address and in all, per hour", async () => {
    clock = 10 * 3600_000;
    admitted = [];
    const ok = { redirect_uris: ["https://c.example/cb"] };
    for (let i = 0; i < 3; i++) expect((await register(ok, "192.0.2.1")).status).toBe(201);
    const fourth = await register(ok, "192.0.2.1");
    expect(fourth).toMatchObject({
      status: 429,
      retryAfter: "3600",
      body: { error_description: "at most 3 client registrations per hour from one address" },
    });
    expect((await register(ok, "192.0.2.2")).status).toBe(201);
    expect((await register(ok, "192.0.2.3")).body.error_description).toBe("at most 4 client registrations per hour");
    clock += 3600_000;
    expect((await register(ok, "192.0.2.1")).status).toBe(201);
    expect(admitted).toHaveLength(5);
  });
});

describe("a registered client never used expires", () => {
  const services = ManagedRuntime.make(
    Layer.mergeAll(Layer.succeed(Storage, makeMemoryStorage()), aesGcmCipherLayer(new Uint8Array(randomBytes(32)))),
  );
  afterAll(() => services.dispose());

  it("is gone after its time unless a grant was made for it", async () => {
    let now = new Date("2026-11-28T10:00:00Z");
    const at = () => now;
    const records = oauthRecords(services, at);
    const Adapter = storageAdapter(records, () => undefined, { unusedClientTtlSeconds: 3600 }, at);
    const clients = new Adapter("Client");
    const grants = new Adapter("Grant");
    await clients.upsert("unused", { client_id: "unused", redirect_uris: ["https://c.example/cb"] });
    await clients.upsert("used", { client_id: "used", redirect_uris: ["https://c.example/cb"] });
    await grants.upsert("grant-1", { jti: "grant-1", accountId: "tenant", clientId: "used" } as never, 86_400);
    now = new Date(now.getTime() + 3601_000);
    expect(await clients.find("unused")).toBeUndefined();
    expect(await clients.find("used")).toMatchObject({ client_id: "used" });
    const row = await records.run((tx) => tx.findOAuthServerRecord(oauthServerRecordId("Client", "used")));
    expect(row?.expiresAt).toBeNull();
  });
});
