import { execFile, spawn } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";

// What the image's final stage holds, made the way its build stage makes it (`pnpm deploy --prod`), started
// the way the image starts it (its ENV, `node dist/main.js`, a fresh DATA_DIR), and checked with the
// image's own HEALTHCHECK command: the closest this sandbox gets to running the container.

const root = join(import.meta.dirname, "..", "..", "..");
const run = promisify(execFile);

const freePort = () =>
  new Promise<number>((resolve) => {
    const server = createServer().listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });

describe("the image's application directory", () => {
  const dirs: Array<string> = [];
  afterAll(async () => {
    for (const dir of dirs) await rm(dir, { recursive: true, force: true });
  });

  it("runs on production dependencies alone, passes the HEALTHCHECK, and exits 0 on SIGTERM", async () => {
    const containerfile = (await readFile(join(root, "deploy", "Containerfile"), "utf8")).replace(/\\\n/g, " ");
    const deployCommand = /pnpm (--filter @mcpsm\/api deploy --prod --legacy) \/app/.exec(containerfile);
    expect(deployCommand).not.toBeNull();
    const app = await mkdtemp(join(tmpdir(), "mcpsm-image-app-"));
    const data = await mkdtemp(join(tmpdir(), "mcpsm-image-data-"));
    dirs.push(app, data);
    await rm(app, { recursive: true });
    // --prefer-offline: the store the workspace's install filled has every package, and pnpm's metadata cache
    // answers when it holds them; a machine that only ran frozen-lockfile installs has none, so pnpm asks the
    // registry for them (turbo passes NODE_EXTRA_CA_CERTS through for that). The image's build stage does the same.
    await run("pnpm", [...deployCommand![1]!.split(" "), "--prefer-offline", app], { cwd: root, timeout: 90_000 });

    // The final stage's ENV (one line of NAME=value pairs), then loopback and a port of our own.
    const imageEnv = Object.fromEntries(
      (/^ENV (.*)$/m.exec(containerfile.slice(containerfile.lastIndexOf("\nFROM ")))?.[1] ?? "")
        .split(/\s+/)
        .map((pair) => pair.split("=") as [string, string]),
    );
    expect(imageEnv.DATA_DIR).toBe("/data");
    const port = String(await freePort());
    const env = {
      PATH: process.env.PATH ?? "",
      ...imageEnv,
      HOST: "127.0.0.1",
      PORT: port,
      METRICS_PORT: "0",
      DATA_DIR: data,
    };
    const child = spawn(process.execPath, ["dist/main.js"], { cwd: app, env, stdio: ["ignore", "pipe", "pipe"] });
    const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
    let stderr = "";
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
    await new Promise<void>((resolve, reject) => {
      void exited.then((code) => reject(new Error(`exited ${code} before listening: ${stderr}`)));
      createInterface({ input: child.stdout }).on("line", (line) => {
        if (line.includes('"msg":"listening"')) resolve();
      });
    });

    const healthcheck = /^HEALTHCHECK .*?CMD (\[.*\])$/m.exec(containerfile)?.[1];
    const [command, ...args] = JSON.parse(healthcheck!) as Array<string>;
    expect(command).toBe("node");
    await run(process.execPath, args, { env });

    child.kill("SIGTERM");
    expect(await exited).toBe(0);
  });
});
