import { describe, expect, it } from "vitest";
import { serviceForFile } from "./support/file-service.js";
import {
  expectCreated,
  expectInvalid,
  expectNoContent,
  expectProblem,
  expectStatus,
  ID,
  TIMESTAMP,
} from "./support/problems.js";
import { byId, createServer, createToken, unknownId } from "./support/records.js";

// Server tokens: spec §4 (POST /servers/{id}/tokens) and docs/api-rules.md §§4, 10 (list, get, revoke).

const world = serviceForFile({ alice: "tokens" });

const inAnHour = () => new Date(Date.now() + 3_600_000).toISOString();

describe("create", () => {
  it("POST /servers/{id}/tokens answers 201 with Location and the token, value included this once", async () => {
    const server = await createServer(world.alice.api);
    const expiresAt = inAnHour();
    const res = await world.alice.api.post(`/servers/${server.id}/tokens`, { token: { name: "ci", expiresAt } });
    const token = res.body.token;
    expectCreated(res, `/servers/${server.id}/tokens/${token.id}`);
    expect(Object.keys(res.body)).toEqual(["token"]);
    expect(token.id).toMatch(ID);
    expect(token.createdAt).toMatch(TIMESTAMP);
    expect(token).toEqual({
      id: token.id,
      serverID: server.id,
      createdAt: token.createdAt,
      expiresAt,
      name: "ci",
      value: token.value,
    });
    // mcps_ then at least 160 bits of base-62 randomness (27 characters or more).
    expect(token.value).toMatch(/^mcps_[A-Za-z0-9]{27,}$/);
    // The service keeps a hash, not the value.
    const stored = await world.svc.inspect((tx) => tx.findServerToken(token.id));
    expect(stored).toBeDefined();
    expect(JSON.stringify(stored)).not.toContain(token.value);
  });

  it("expiresAt is optional (absent: no expiry) and is returned in the timestamp form of docs/api-rules.md §12", async () => {
    const server = await createServer(world.alice.api);
    const forever = await createToken(world.alice.api, server.id, { name: "forever" });
    expect("expiresAt" in forever).toBe(false);
    const offset = await createToken(world.alice.api, server.id, { expiresAt: "2999-06-01T12:00:00+02:00" });
    expect(offset.expiresAt).toBe("2999-06-01T10:00:00.000Z");
  });

  it("every token value differs", async () => {
    const server = await createServer(world.alice.api);
    const values = new Set<string>();
    for (let i = 0; i < 10; i++) values.add((await createToken(world.alice.api, server.id)).value);
    expect(values.size).toBe(10);
  });

  it.each([
    ["name missing", {}, "token.name"],
    ["name empty", { name: "  " }, "token.name"],
    ["expiresAt in the past", { name: "old", expiresAt: "2000-01-01T00:00:00Z" }, "token.expiresAt"],
    ["expiresAt not a date-time", { name: "bad", expiresAt: "tomorrow" }, "token.expiresAt"],
    ["expiresAt without a zone", { name: "bad", expiresAt: "2999-01-01T00:00:00" }, "token.expiresAt"],
    ["unknown field", { name: "x", scopes: ["all"] }, "token.scopes"],
  ])("%s answers 400 at %s", async (_label, token, path) => {
    const server = await createServer(world.alice.api);
    expect(expectInvalid(await world.alice.api.post(`/servers/${server.id}/tokens`, { token }))).toEqual([path]);
    expect((await world.alice.api.get(`/servers/${server.id}/tokens`)).body).toEqual({ tokens: [] });
  });

  it("a client-sent value or id is ignored (output-only)", async () => {
    const server = await createServer(world.alice.api);
    const res = await world.alice.api.post(`/servers/${server.id}/tokens`, {
      token: { name: "mine", value: "mcps_chosenByTheClient", id: "AAAAAAAAAAA", serverID: unknownId() },
    });
    expectStatus(res, 201);
    expect(res.body.token.value).not.toBe("mcps_chosenByTheClient");
    expect(res.body.token.id).not.toBe("AAAAAAAAAAA");
    expect(res.body.token.serverID).toBe(server.id);
  });

  it("a token for an unknown server answers 404; a malformed server id 400", async () => {
    expectProblem(
      await world.alice.api.post(`/servers/${unknownId()}/tokens`, { token: { name: "x" } }),
      404,
      "NOT_FOUND",
    );
    expect(expectInvalid(await world.alice.api.post("/servers/nope/tokens", { token: { name: "x" } }))).toEqual(["id"]);
  });
});

describe("list, get, revoke", () => {
  it("GET /servers/{id}/tokens lists the server's tokens without values", async () => {
    const server = await createServer(world.alice.api);
    const other = await createServer(world.alice.api);
    const a = await createToken(world.alice.api, server.id, { name: "a", expiresAt: inAnHour() });
    const b = await createToken(world.alice.api, server.id, { name: "b" });
    await createToken(world.alice.api, other.id);
    const res = await world.alice.api.get(`/servers/${server.id}/tokens`);
    expectStatus(res, 200);
    const { value: _a, ...aShown } = a;
    const { value: _b, ...bShown } = b;
    expect(Object.keys(res.body)).toEqual(["tokens"]);
    expect(byId(res.body.tokens)).toEqual(byId([aShown, bShown]));
    expect(res.text).not.toContain(a.value);
    expect(res.text).not.toContain("mcps_");
  });

  it("GET /servers/{id}/tokens/{tokenID} reads one token without its value", async () => {
    const server = await createServer(world.alice.api);
    const token = await createToken(world.alice.api, server.id);
    const res = await world.alice.api.get(`/servers/${server.id}/tokens/${token.id}`);
    expectStatus(res, 200);
    const { value: _value, ...shown } = token;
    expect(res.body).toEqual({ token: shown });
    expectProblem(await world.alice.api.get(`/servers/${server.id}/tokens/${unknownId()}`), 404, "NOT_FOUND");
    expect(expectInvalid(await world.alice.api.get(`/servers/${server.id}/tokens/short`))).toEqual(["tokenID"]);
  });

  it("a token is reached only through its own server", async () => {
    const s1 = await createServer(world.alice.api);
    const s2 = await createServer(world.alice.api);
    const token = await createToken(world.alice.api, s1.id);
    expectProblem(await world.alice.api.get(`/servers/${s2.id}/tokens/${token.id}`), 404, "NOT_FOUND");
    expectProblem(await world.alice.api.delete(`/servers/${s2.id}/tokens/${token.id}`), 404, "NOT_FOUND");
    expectStatus(await world.alice.api.get(`/servers/${s1.id}/tokens/${token.id}`), 200);
  });

  it("DELETE revokes at once: 204, then gone from get and list, and from the store", async () => {
    const server = await createServer(world.alice.api);
    const keep = await createToken(world.alice.api, server.id);
    const revoke = await createToken(world.alice.api, server.id);
    expectNoContent(await world.alice.api.delete(`/servers/${server.id}/tokens/${revoke.id}`));
    expectProblem(await world.alice.api.get(`/servers/${server.id}/tokens/${revoke.id}`), 404, "NOT_FOUND");
    expectProblem(await world.alice.api.delete(`/servers/${server.id}/tokens/${revoke.id}`), 404, "NOT_FOUND");
    const ids = (await world.alice.api.get(`/servers/${server.id}/tokens`)).body.tokens.map(
      (t: { id: string }) => t.id,
    );
    expect(ids).toEqual([keep.id]);
    expect(await world.svc.inspect((tx) => tx.findServerToken(revoke.id))).toBeUndefined();
  });

  it("deleting a server deletes its tokens", async () => {
    const server = await createServer(world.alice.api);
    const a = await createToken(world.alice.api, server.id);
    const b = await createToken(world.alice.api, server.id);
    expectNoContent(await world.alice.api.delete(`/servers/${server.id}`));
    expectProblem(await world.alice.api.get(`/servers/${server.id}/tokens`), 404, "NOT_FOUND");
    expectProblem(await world.alice.api.get(`/servers/${server.id}/tokens/${a.id}`), 404, "NOT_FOUND");
    expect(await world.svc.inspect((tx) => tx.findServerToken(a.id))).toBeUndefined();
    expect(await world.svc.inspect((tx) => tx.findServerToken(b.id))).toBeUndefined();
    expect(await world.svc.inspect((tx) => tx.listServerTokens(server.id))).toEqual([]);
  });
});
