import { execFile, spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";

// A real git server for tests: git's own `git http-backend` (smart HTTP, as GitHub and GitLab speak it)
// behind a small Node HTTP server on 127.0.0.1 that asks for basic auth. Repositories are bare directories
// under a temporary root; tests read them (and commit to them as "someone else") with the git binary.
// Needs git on the machine (scripts/ensure-git.sh); the service itself never does.

const run = promisify(execFile);

/** A git server on loopback. */
export interface GitHttpServer {
  /** `http://127.0.0.1:<port>`: a git connection's baseURL. */
  readonly baseURL: string;
  /** Creates an empty bare repository `<owner>/<name>` whose HEAD is `branch`. */
  readonly createRepository: (fullName: string, branch?: string) => Promise<void>;
  /** Commits `files` to the default branch of a repository as another user, directly on disk. */
  readonly commitAsSomeoneElse: (
    fullName: string,
    files: Readonly<Record<string, string>>,
    message: string,
  ) => Promise<string>;
  /** The commits of the default branch, newest first: id and subject. */
  readonly log: (fullName: string) => Promise<ReadonlyArray<{ readonly commit: string; readonly subject: string }>>;
  /** The full message of a commit. */
  readonly message: (fullName: string, commit: string) => Promise<string>;
  /** Every file at the tip of the default branch: path → content. */
  readonly files: (fullName: string) => Promise<ReadonlyMap<string, string>>;
  /** How many requests were answered, by status (for tests that assert a refusal happened). */
  readonly statuses: () => ReadonlyMap<number, number>;
  readonly close: () => Promise<void>;
}

const git = async (args: ReadonlyArray<string>, cwd?: string) =>
  (await run("git", [...args], { cwd, maxBuffer: 64 * 1024 * 1024, env: { ...process.env, GIT_TERMINAL_PROMPT: "0" } }))
    .stdout;

/** Reads a CGI answer: headers up to the blank line, then the body. */
const splitCgi = (output: Buffer) => {
  let end = output.indexOf("\r\n\r\n");
  let skip = 4;
  if (end < 0) {
    end = output.indexOf("\n\n");
    skip = 2;
  }
  const head = output.subarray(0, Math.max(end, 0)).toString("latin1");
  const body = end < 0 ? output : output.subarray(end + skip);
  let status = 200;
  const headers: Array<[string, string]> = [];
  for (const line of head.split(/\r?\n/)) {
    const colon = line.indexOf(":");
    if (colon < 0) continue;
    const name = line.slice(0, colon).trim();
    const value = line.slice(colon + 1).trim();
    if (name.toLowerCase() === "status") status = Number.parseInt(value, 10);
    else headers.push([name, value]);
  }
  return { status, headers, body };
};

/**
 * Starts the server. `credentials` answers the accepted user name and password at each request (so a test
 * can change them); every request without them gets 401 with a Basic challenge.
 */
export const startGitHttpServer = async (
  credentials: () => { readonly username: string; readonly password: string },
): Promise<GitHttpServer> => {
  const root = await mkdtemp(join(tmpdir(), "mcpsm-git-server-"));
  const backend = join((await git(["--exec-path"])).trim(), "git-http-backend");
  const counts = new Map<number, number>();
  const answer = (res: ServerResponse, status: number, headers: Array<[string, string]>, body: Buffer | string) => {
    counts.set(status, (counts.get(status) ?? 0) + 1);
    res.writeHead(status, headers);
    res.end(body);
  };

  const handle = (req: IncomingMessage, res: ServerResponse) => {
    const expected = credentials();
    const header = req.headers.authorization ?? "";
    const given = header.startsWith("Basic ") ? Buffer.from(header.slice(6), "base64").toString("utf8") : "";
    if (given !== `${expected.username}:${expected.password}`) {
      answer(res, 401, [["WWW-Authenticate", 'Basic realm="git"']], "authentication required\n");
      return;
    }
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    const child = spawn(backend, [], {
      env: {
        GIT_PROJECT_ROOT: root,
        GIT_HTTP_EXPORT_ALL: "1",
        REMOTE_USER: expected.username,
        REMOTE_ADDR: "127.0.0.1",
        REQUEST_METHOD: req.method ?? "GET",
        PATH_INFO: decodeURIComponent(url.pathname),
        QUERY_STRING: url.search.slice(1),
        CONTENT_TYPE: req.headers["content-type"] ?? "",
        ...(req.headers["content-encoding"] ? { HTTP_CONTENT_ENCODING: req.headers["content-encoding"] } : {}),
        ...(req.headers["git-protocol"] ? { GIT_PROTOCOL: String(req.headers["git-protocol"]) } : {}),
        PATH: process.env.PATH ?? "/usr/bin:/bin",
      },
    });
    const out: Array<Buffer> = [];
    child.stdout.on("data", (chunk: Buffer) => out.push(chunk));
    child.stderr.resume();
    req.pipe(child.stdin);
    child.on("error", () => answer(res, 500, [], "git http-backend did not start\n"));
    child.on("close", () => {
      const { status, headers, body } = splitCgi(Buffer.concat(out));
      answer(res, status, headers, body);
    });
  };

  const server = createServer(handle);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  const repoDir = (fullName: string) => join(root, `${fullName}.git`);

  return {
    baseURL: `http://127.0.0.1:${port}`,
    createRepository: async (fullName, branch = "main") => {
      await git(["init", "--quiet", "--bare", `--initial-branch=${branch}`, repoDir(fullName)]);
      await git(["config", "http.receivepack", "true"], repoDir(fullName));
    },
    commitAsSomeoneElse: async (fullName, files, message) => {
      const work = await mkdtemp(join(tmpdir(), "mcpsm-git-foreign-"));
      try {
        await git(["clone", "--quiet", repoDir(fullName), work]);
        const { writeFile, mkdir } = await import("node:fs/promises");
        const { dirname } = await import("node:path");
        for (const [path, content] of Object.entries(files)) {
          await mkdir(dirname(join(work, path)), { recursive: true });
          await writeFile(join(work, path), content);
        }
        await git(["add", "--all"], work);
        await git(
          ["-c", "user.name=Someone Else", "-c", "user.email=else@example.com", "commit", "--quiet", "-m", message],
          work,
        );
        await git(["push", "--quiet", "origin", "HEAD"], work);
        return (await git(["rev-parse", "HEAD"], work)).trim();
      } finally {
        await rm(work, { recursive: true, force: true });
      }
    },
    log: async (fullName) => {
      const text = await git(["log", "--format=%H %s", "HEAD"], repoDir(fullName)).catch(() => "");
      return text
        .split("\n")
        .filter((line) => line !== "")
        .map((line) => ({ commit: line.slice(0, 40), subject: line.slice(41) }));
    },
    message: async (fullName, commit) => await git(["log", "-1", "--format=%B", commit], repoDir(fullName)),
    files: async (fullName) => {
      const names = (await git(["ls-tree", "-r", "--name-only", "HEAD"], repoDir(fullName)))
        .split("\n")
        .filter(Boolean);
      const files = new Map<string, string>();
      for (const name of names) files.set(name, await git(["show", `HEAD:${name}`], repoDir(fullName)));
      return files;
    },
    statuses: () => new Map(counts),
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await rm(root, { recursive: true, force: true });
    },
  };
};
