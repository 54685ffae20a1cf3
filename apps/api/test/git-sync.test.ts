import { type GitHttpServer, startGitHttpServer } from "@mcpsm/git-sync/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestService, type Tenant, type TestService } from "./support/harness.js";
import { expectProblem, expectStatus } from "./support/problems.js";
import { createGitConnection, createProviderFamily, createServer, uniq } from "./support/records.js";

// docs/api-rules.md §17 end to end: the service pushes to a real git server on loopback (git's own
// http-backend behind basic auth), in the background, under the outbound address policy (loopback allowed
// here as the other loopback tests allow it). States are awaited by polling GET /servers/{id}/git-sync
// with a deadline, never by sleeping.

// biome-ignore lint/suspicious/noExplicitAny: response bodies are free-form JSON
type Json = any;

const GOOD_TOKEN = `good-${uniq()}-token`;
const gitUser = { username: "bot", password: GOOD_TOKEN };
let git: GitHttpServer;
let svc: TestService;
let alice: Tenant;

beforeAll(async () => {
  git = await startGitHttpServer(() => gitUser);
  svc = await startTestService({
    metrics: true,
    mcp: { upstreamAllowedNetworks: ["127.0.0.0/8"] },
    // A burst of writes is one quiet period long; failures retry quickly so a fixed connection syncs soon.
    gitSync: { debounceMs: 1_500, maxDelayMs: 30_000, pollMs: 100, baseBackoffMs: 500, maxBackoffMs: 2_000 },
  });
  alice = await svc.tenant("alice");
});
afterAll(async () => {
  await svc?.close();
  await git?.close();
});

/** Polls the server's git sync until `done` holds (60 s deadline); answers the last state. */
const syncOf = async (serverId: string, done: (sync: Json) => boolean, api = alice.api): Promise<Json> => {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const res = await api.get(`/servers/${serverId}/git-sync`);
    expectStatus(res, 200);
    if (done(res.body.gitSync)) return res.body.gitSync;
    if (Date.now() > deadline)
      throw new Error(`git sync of ${serverId} did not settle: ${JSON.stringify(res.body.gitSync)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
};
const synced = (after?: string) => (sync: Json) => sync.state === "SYNCED" && sync.commit !== after;

const newRepository = async () => {
  const name = `team/config-${uniq()}`;
  await git.createRepository(name);
  return name;
};

const connection = (overrides: Json = {}) =>
  createGitConnection(alice.api, {
    kind: "GENERIC",
    baseURL: git.baseURL,
    username: gitUser.username,
    token: GOOD_TOKEN,
    ...overrides,
  });

/** A server with a provider of two tools, pushed to a new repository through `conn`. */
const syncedServer = async (conn: Json, repo: string) => {
  const family = await createProviderFamily(alice.api);
  const server = await createServer(alice.api, {
    providers: [{ id: family.provider.id }],
    prompts: [{ id: family.prompt.id }],
    gitConnectionID: conn.id,
    gitRepoFullName: repo,
  });
  return { server, family };
};

const folderOf = (name: string) => name.replace(/[^A-Za-z0-9._-]+/g, "-");

describe("git connections", () => {
  it("create answers without the token; list and get show it; a GENERIC host needs a baseURL", async () => {
    const conn = await connection({ name: `Host ${uniq()}` });
    expect(Object.keys(conn).sort()).toEqual(["baseURL", "createdAt", "id", "kind", "name", "updatedAt", "username"]);
    expect(conn).toMatchObject({ kind: "GENERIC", baseURL: git.baseURL, username: "bot" });
    const listed = await alice.api.get("/git-connections");
    expect(listed.body.gitConnections.map((c: Json) => c.id)).toContain(conn.id);
    expect((await alice.api.get(`/git-connections/${conn.id}`)).body.gitConnection).toEqual(conn);
    const github = (
      await alice.api.post("/git-connections", {
        gitConnection: { name: `GH ${uniq()}`, kind: "GITHUB", token: `ghp_${uniq()}xyz` },
      })
    ).body.gitConnection;
    expect(github.baseURL).toBe("https://github.com");
    expectProblem(
      await alice.api.post("/git-connections", {
        gitConnection: { name: `G ${uniq()}`, kind: "GENERIC", token: "t0k3n-abcdef" },
      }),
      400,
      "INVALID_ARGUMENT",
    );
    const bob = await svc.tenant("bob");
    expectProblem(await bob.api.get(`/git-connections/${conn.id}`), 404, "NOT_FOUND");
  });

  it("a server write checks the connection and the repository name", async () => {
    const conn = await connection({ name: `Check ${uniq()}` });
    const bob = await svc.tenant("bob");
    expectProblem(
      await bob.api.post("/servers", {
        server: { name: `S ${uniq()}`, gitConnectionID: conn.id, gitRepoFullName: "a/b" },
      }),
      400,
      "INVALID_ARGUMENT",
    );
    expectProblem(
      await alice.api.post("/servers", { server: { name: `S ${uniq()}`, gitConnectionID: conn.id } }),
      400,
      "INVALID_ARGUMENT",
    );
    expectProblem(
      await alice.api.post("/servers", {
        server: { name: `S ${uniq()}`, gitConnectionID: conn.id, gitRepoFullName: "../etc/passwd" },
      }),
      400,
      "INVALID_ARGUMENT",
    );
    const plain = await createServer(alice.api);
    expect(plain).toMatchObject({ gitProvider: "", gitRepoFullName: "" });
    expect((await alice.api.get(`/servers/${plain.id}/git-sync`)).body.gitSync).toEqual({
      state: "OFF",
      commit: "",
      pushedAt: "",
      error: "",
    });
  });
});

describe("pushes", () => {
  it("a server change lands as a commit whose files match the export", async () => {
    const repo = await newRepository();
    const conn = await connection({ name: `Sync ${uniq()}` });
    const { server, family } = await syncedServer(conn, repo);
    expect(server).toMatchObject({ gitProvider: "GENERIC", gitRepoFullName: repo });
    const first = await syncOf(server.id, synced());
    expect(first.error).toBe("");
    expect(first.pushedAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    const log = await git.log(repo);
    expect(log.map((c) => c.commit)).toEqual([first.commit]);
    expect(log[0]?.subject).toContain(`${server.name} v1`);

    const folder = folderOf(server.name);
    const files = await git.files(repo);
    const exported = (await alice.api.get(`/servers/${server.id}/export`)).body;
    expect(JSON.parse(files.get(`${folder}/export.json`) ?? "null")).toEqual(exported);
    const readme = files.get(`${folder}/README.md`) ?? "";
    expect(readme).toContain(`# ${server.name}`);
    for (const tool of family.tools) {
      expect(readme).toContain(tool.name);
      const file = files.get(`${folder}/${folderOf(family.provider.name)}/${tool.name}.json`);
      expect(JSON.parse(file ?? "null")).toMatchObject({ name: tool.name, method: tool.method, path: tool.path });
    }

    // A change of a tool the server uses is a change of the server's repository too.
    const toolName = family.tools[0].name;
    expectStatus(
      await alice.api.patch(`/providers/${family.provider.id}/tools/${family.tools[0].id}`, {
        tool: { description: "Reads the forecast" },
      }),
      200,
    );
    const second = await syncOf(server.id, synced(first.commit));
    const after = await git.files(repo);
    expect(
      JSON.parse(after.get(`${folder}/${folderOf(family.provider.name)}/${toolName}.json`) ?? "null"),
    ).toMatchObject({
      description: "Reads the forecast",
    });
    expect(JSON.parse(after.get(`${folder}/export.json`) ?? "null")).toEqual(
      (await alice.api.get(`/servers/${server.id}/export`)).body,
    );
    const message = await git.message(repo, second.commit);
    expect(message).toMatch(new RegExp(`change tool \\S*${toolName}`));
    expect(await git.log(repo)).toHaveLength(2);
  });

  it("a restore of a revision lands as a commit like any other change (docs/api-rules.md §21)", async () => {
    const repo = await newRepository();
    const conn = await connection({ name: `Restore ${uniq()}` });
    const { server } = await syncedServer(conn, repo);
    const first = await syncOf(server.id, synced());
    expectStatus(await alice.api.patch(`/servers/${server.id}`, { server: { description: "changed" } }), 200);
    const second = await syncOf(server.id, synced(first.commit));
    expectStatus(await alice.api.post(`/servers/${server.id}/revisions/1/restore`, { server: { version: 2 } }), 200);
    const third = await syncOf(server.id, synced(second.commit));
    const files = await git.files(repo);
    const exported = (await alice.api.get(`/servers/${server.id}/export`)).body;
    expect(exported.server.description).toBe(server.description);
    expect(JSON.parse(files.get(`${folderOf(server.name)}/export.json`) ?? "null")).toEqual(exported);
    expect((await git.log(repo)).map((c) => c.commit)[0]).toBe(third.commit);
    // Three pushes one after another: more than the default 30 s on a loaded machine.
  }, 90_000);

  it("per-server tool settings and the approval policy land in the repository (docs/api-rules.md §20)", async () => {
    const repo = await newRepository();
    const conn = await connection({ name: `Settings ${uniq()}` });
    const { server, family } = await syncedServer(conn, repo);
    const first = await syncOf(server.id, synced());
    const settings = {
      alias: "forecastFor",
      description: "The forecast, for the agent",
      fixedArgs: {},
      approval: "ALWAYS",
    };
    expectStatus(await alice.api.patch(`/servers/${server.id}/tools/${family.tools[0].id}`, { tool: settings }), 200);
    expectStatus(await alice.api.patch(`/servers/${server.id}`, { server: { approvalPolicy: "WRITES" } }), 200);
    await syncOf(server.id, synced(first.commit));
    const exported = (await alice.api.get(`/servers/${server.id}/export`)).body;
    expect(exported.server.approvalPolicy).toBe("WRITES");
    // SYNCED after both writes: the repository holds the current state, whether as one commit or two.
    const document = JSON.parse((await git.files(repo)).get(`${folderOf(server.name)}/export.json`) ?? "null");
    expect(document).toEqual(exported);
    expect(document.server.approvalPolicy).toBe("WRITES");
    const tool = document.providers[0].tools.find((t: Json) => t.name === family.tools[0].name);
    expect(tool.serverSettings).toEqual(settings);
  }, 90_000);

  it("a burst of 20 changes lands as at most 3 commits holding the final state", async () => {
    const repo = await newRepository();
    const conn = await connection({ name: `Burst ${uniq()}` });
    const { server } = await syncedServer(conn, repo);
    const first = await syncOf(server.id, synced());
    const started = performance.now();
    for (let i = 1; i <= 20; i++)
      expectStatus(await alice.api.patch(`/servers/${server.id}`, { server: { description: `change ${i}` } }), 200);
    const writing = performance.now() - started;
    const last = await syncOf(server.id, synced(first.commit));
    const log = await git.log(repo);
    console.info(
      `git sync: 20 writes in ${Math.round(writing)} ms became ${log.length - 1} commit(s), ` +
        `SYNCED ${Math.round(performance.now() - started)} ms after the first write`,
    );
    expect(log[0]?.commit).toBe(last.commit);
    expect(log.length - 1).toBeGreaterThanOrEqual(1);
    expect(log.length - 1).toBeLessThanOrEqual(3);
    const exported = JSON.parse((await git.files(repo)).get(`${folderOf(server.name)}/export.json`) ?? "null");
    expect(exported.server.description).toBe("change 20");
    expect(log[0]?.subject).toContain(`${server.name} v21`);
  });

  it("a wrong token is FAILED with a clear error, the write unaffected; SYNCED once the connection is fixed", async () => {
    const repo = await newRepository();
    const wrong = await connection({ name: `Wrong ${uniq()}`, token: `wrong-${uniq()}-token` });
    const { server } = await syncedServer(wrong, repo);
    expect(server.version).toBe(1);
    const failed = await syncOf(server.id, (s) => s.state === "FAILED");
    expect(failed.error).toMatch(/refused the credentials .*HTTP 401.*token/);
    expect(failed.commit).toBe("");
    expect(await git.log(repo)).toEqual([]);
    expect((await alice.api.get(`/servers/${server.id}`)).body.server.version).toBe(1);

    const fixed = await connection({ name: `Fixed ${uniq()}` });
    expectStatus(await alice.api.patch(`/servers/${server.id}`, { server: { gitConnectionID: fixed.id } }), 200);
    const ok = await syncOf(server.id, synced());
    expect(ok.error).toBe("");
    expect((await git.log(repo)).map((c) => c.commit)).toEqual([ok.commit]);
  });

  it("a commit someone else pushed to the repository is kept", async () => {
    const repo = await newRepository();
    const foreign = await git.commitAsSomeoneElse(repo, { "README.md": "# Our MCP configuration\n" }, "Start the repo");
    const conn = await connection({ name: `Foreign ${uniq()}` });
    const { server } = await syncedServer(conn, repo);
    const first = await syncOf(server.id, synced());
    const theirs = await git.commitAsSomeoneElse(repo, { "docs/review.md": "reviewed\n" }, "Review notes");
    expectStatus(await alice.api.patch(`/servers/${server.id}`, { server: { description: "after review" } }), 200);
    const second = await syncOf(server.id, synced(first.commit));
    const log = (await git.log(repo)).map((c) => c.commit);
    expect(log).toEqual([second.commit, theirs, first.commit, foreign]);
    const files = await git.files(repo);
    expect(files.get("README.md")).toBe("# Our MCP configuration\n");
    expect(files.get("docs/review.md")).toBe("reviewed\n");
  });

  it("a repository that does not exist is FAILED with a clear error", async () => {
    const conn = await connection({ name: `Missing ${uniq()}` });
    const { server } = await syncedServer(conn, "team/does-not-exist");
    const failed = await syncOf(server.id, (s) => s.state === "FAILED");
    expect(failed.error).toMatch(/team\/does-not-exist does not exist \(HTTP 404\)/);
  });

  it("deleting the connection stops the sync and says why; the server shows no git provider", async () => {
    const repo = await newRepository();
    const conn = await connection({ name: `Gone ${uniq()}` });
    const { server } = await syncedServer(conn, repo);
    await syncOf(server.id, synced());
    expectStatus(await alice.api.delete(`/git-connections/${conn.id}`), 204);
    const off = await syncOf(server.id, (s) => s.state === "OFF");
    expect(off.error).toContain(conn.id);
    expect((await alice.api.get(`/servers/${server.id}`)).body.server).toMatchObject({
      gitProvider: "",
      gitRepoFullName: repo,
    });
  });
});

describe("metrics", () => {
  it("count pushes by outcome (docs/api-rules.md §18)", async () => {
    const text = await (await fetch(svc.metricsUrl ?? "")).text();
    const count = (outcome: string) =>
      Number(new RegExp(`^mcpsm_git_pushes_total\\{outcome="${outcome}"\\} (\\d+)`, "m").exec(text)?.[1] ?? 0);
    expect(count("pushed")).toBeGreaterThanOrEqual(8);
    expect(count("auth")).toBeGreaterThanOrEqual(1);
    expect(count("not_found")).toBeGreaterThanOrEqual(1);
  });
});

describe("the outbound address policy", () => {
  it("a git host on a loopback address is refused where loopback is not allowed", async () => {
    const strict = await startTestService({ gitSync: { debounceMs: 1, pollMs: 100 } });
    try {
      const carol = await strict.tenant("carol");
      const conn = (
        await carol.api.post("/git-connections", {
          gitConnection: { name: "loopback", kind: "GENERIC", baseURL: git.baseURL, token: GOOD_TOKEN },
        })
      ).body.gitConnection;
      const server = await createServer(carol.api, { gitConnectionID: conn.id, gitRepoFullName: "team/x" });
      const failed = await syncOf(server.id, (s) => s.state === "FAILED", carol.api);
      expect(failed.error).toMatch(/network policy/);
    } finally {
      await strict.close();
    }
  });
});
