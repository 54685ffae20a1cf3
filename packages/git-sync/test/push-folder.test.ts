import { mkdtemp, rm } from "node:fs/promises";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { HttpClient } from "isomorphic-git";
import { Agent } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { gitHttpClient, PushFailure, pushFailureOf, pushFolder, type PushFolderRequest } from "../src/index.js";
import { type GitHttpServer, startGitHttpServer } from "../src/testing/index.js";

// pushFolder against git's own http-backend on loopback: the layout lands as one commit, other people's
// files and commits are kept (also when they push in between), and each refusal becomes a clear failure.

const credentials = { username: "bot", password: "s3cret-token-for-tests" };
let server: GitHttpServer;
let workRoot: string;
const dispatcher = new Agent();
const http = gitHttpClient(dispatcher);
let n = 0;

beforeAll(async () => {
  server = await startGitHttpServer(() => credentials);
  workRoot = await mkdtemp(join(tmpdir(), "git-sync-test-"));
});
afterAll(async () => {
  await server.close();
  await rm(workRoot, { recursive: true, force: true });
  await dispatcher.close();
});

const newRepo = async () => {
  const name = `team/repo-${n++}`;
  await server.createRepository(name);
  return name;
};

const request = (
  repo: string,
  files: Record<string, string>,
  over: Partial<PushFolderRequest> = {},
): PushFolderRequest => ({
  url: `${server.baseURL}/${repo}.git`,
  username: credentials.username,
  token: credentials.password,
  folder: "weather",
  files: new Map(Object.entries(files)),
  message: (c) => `sync: ${c.added.length} added, ${c.modified.length} changed, ${c.removed.length} removed`,
  author: { name: "Test", email: "test@example.com" },
  http,
  workRoot,
  ...over,
});

describe("pushFolder", () => {
  it("pushes the folder to an empty repository as one commit on its default branch", async () => {
    const repo = await newRepo();
    const result = await pushFolder(request(repo, { "export.json": "{}\n", "api/getForecast.json": '{"a":1}\n' }));
    expect(result).toMatchObject({ changed: true, branch: "main" });
    expect(await server.log(repo)).toEqual([{ commit: result.commit, subject: "sync: 2 added, 0 changed, 0 removed" }]);
    expect(Object.fromEntries(await server.files(repo))).toEqual({
      "weather/export.json": "{}\n",
      "weather/api/getForecast.json": '{"a":1}\n',
    });
  });

  it("replaces only its folder: other files and commits stay; an unchanged folder makes no commit", async () => {
    const repo = await newRepo();
    await server.commitAsSomeoneElse(repo, { "README.md": "# ours\n", "weather-notes.md": "x\n" }, "Initial commit");
    await pushFolder(request(repo, { "export.json": "{}\n", "api/a.json": "1\n", "api/b.json": "2\n" }));
    const second = await pushFolder(request(repo, { "export.json": '{"v":2}\n', "api/a.json": "1\n" }));
    expect(second.changed).toBe(true);
    expect((await server.log(repo)).map((c) => c.subject)).toEqual([
      "sync: 0 added, 1 changed, 1 removed",
      "sync: 3 added, 0 changed, 0 removed",
      "Initial commit",
    ]);
    expect(Object.fromEntries(await server.files(repo))).toEqual({
      "README.md": "# ours\n",
      "weather-notes.md": "x\n",
      "weather/export.json": '{"v":2}\n',
      "weather/api/a.json": "1\n",
    });
    const third = await pushFolder(request(repo, { "export.json": '{"v":2}\n', "api/a.json": "1\n" }));
    expect(third).toEqual({ commit: second.commit, changed: false, branch: "main" });
  });

  it("a commit pushed by someone else in between is kept: the push starts again on top of it", async () => {
    const repo = await newRepo();
    await pushFolder(request(repo, { "export.json": "{}\n" }));
    let raced = false;
    // Someone pushes after our fetch and before our push: the host refuses ours as non-fast-forward.
    const racing: HttpClient = {
      request: async (req) => {
        if (!raced && req.method === "POST" && req.url.endsWith("/git-receive-pack")) {
          raced = true;
          await server.commitAsSomeoneElse(repo, { "docs/theirs.md": "theirs\n" }, "Their change");
        }
        return http.request(req);
      },
    };
    const result = await pushFolder(request(repo, { "export.json": '{"v":2}\n' }, { http: racing }));
    expect(raced).toBe(true);
    expect(result.changed).toBe(true);
    expect((await server.log(repo)).map((c) => c.subject)).toEqual([
      "sync: 0 added, 1 changed, 0 removed",
      "Their change",
      "sync: 1 added, 0 changed, 0 removed",
    ]);
    expect((await server.files(repo)).get("docs/theirs.md")).toBe("theirs\n");
  });

  it("removes the folder of an earlier name when the server was renamed", async () => {
    const repo = await newRepo();
    await pushFolder(request(repo, { "export.json": "{}\n" }));
    await pushFolder(request(repo, { "export.json": "{}\n" }, { folder: "forecast", previousFolder: "weather" }));
    expect([...(await server.files(repo)).keys()]).toEqual(["forecast/export.json"]);
  });

  it("a wrong token, a missing repository and a host that is down are clear failures", async () => {
    const repo = await newRepo();
    const fail = async (req: PushFolderRequest) => {
      const error = await pushFolder(req).then(
        () => undefined,
        (e: unknown) => e,
      );
      return pushFailureOf(error, "the repository", req.token);
    };
    const auth = await fail(request(repo, { "export.json": "{}\n" }, { token: "wrong-token-value" }));
    expect(auth).toBeInstanceOf(PushFailure);
    expect(auth.reason).toBe("auth");
    expect(auth.message).toMatch(/refused the credentials .*HTTP 401/);
    expect(auth.message).not.toContain("wrong-token-value");
    const missing = await fail(request("team/no-such-repo", { "export.json": "{}\n" }));
    expect(missing.reason).toBe("not_found");
    expect(missing.message).toMatch(/does not exist/);
    const down = await fail(request(repo, { "export.json": "{}\n" }, { url: "http://127.0.0.1:1/team/x.git" }));
    expect(down.reason).toBe("unreachable");
    expect(down.message).toMatch(/unreachable \(ECONNREFUSED\)/);
  });

  it("a host answering something that is not git: the failure names no byte of its answer", async () => {
    const hostile = createServer((_req, res) => {
      res.writeHead(200, { "content-type": "application/x-git-receive-pack-advertisement" });
      res.end("HOSTILE-BODY <script>alert(1)</script> leaked-internal-detail\n");
    });
    await new Promise<void>((resolve) => hostile.listen(0, "127.0.0.1", resolve));
    try {
      const url = `http://127.0.0.1:${(hostile.address() as AddressInfo).port}/team/x.git`;
      const error = await pushFolder(request("team/x", { "export.json": "{}\n" }, { url })).then(
        () => undefined,
        (e: unknown) => e,
      );
      const failure = pushFailureOf(error, "the repository", credentials.password);
      expect(failure.reason).toBe("other");
      expect(failure.message).toMatch(
        /^pushing to the repository failed: the git host's answer was not one git understands \(\w+\)$/,
      );
      expect(failure.message).not.toMatch(/HOSTILE|script|leaked/);
    } finally {
      hostile.closeAllConnections();
      await new Promise<void>((resolve) => hostile.close(() => resolve()));
    }
  });
});
