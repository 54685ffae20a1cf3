import { readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { HEAP_FLAGS, MALLOC_ENV, relaunchFor } from "../src/launcher/memory-settings.js";
import { startServiceProcess } from "./support/service-process.js";

const node = "/usr/bin/node";
const REOPENED = "storage: embedded database reopened after migrating";
const plain = { execPath: node, execArgv: [], argv: [node, "/srv/dist/main.js", "--x"], env: { HOME: "/root" } };

describe("memory settings at start-up", () => {
  it("relaunches a process started without them, keeping its flags, script, arguments and environment", () => {
    expect(relaunchFor({ ...plain, execArgv: ["--enable-source-maps"] })).toEqual({
      file: node,
      args: [node, ...HEAP_FLAGS, "--enable-source-maps", "/srv/dist/main.js", "--x"],
      env: { HOME: "/root", ...MALLOC_ENV },
    });
  });

  it("does not relaunch the relaunched process (no loop)", () => {
    const relaunched = relaunchFor(plain)!;
    expect(
      relaunchFor({ ...plain, execArgv: relaunched.args.slice(1, 1 + HEAP_FLAGS.length), env: relaunched.env }),
    ).toBeUndefined();
  });

  it("leaves the heap to the operator's own flags, on the command line or in NODE_OPTIONS", () => {
    const withEnv = { ...plain, env: { ...MALLOC_ENV } };
    expect(relaunchFor({ ...withEnv, execArgv: ["--max-semi-space-size=64"] })).toBeUndefined();
    expect(relaunchFor({ ...withEnv, execArgv: ["--max_semi_space_size=64"] })).toBeUndefined();
    expect(
      relaunchFor({ ...withEnv, env: { ...MALLOC_ENV, NODE_OPTIONS: "--inspect --max-semi-space-size=8" } }),
    ).toBeUndefined();
    expect(relaunchFor({ ...withEnv, env: { ...MALLOC_ENV, NODE_OPTIONS: "--max-heap-size=512" } })).toBeUndefined();
    expect(relaunchFor({ ...withEnv, env: { ...MALLOC_ENV, NODE_OPTIONS: "--cpu-prof" } })?.args).toEqual([
      node,
      ...HEAP_FLAGS,
      "/srv/dist/main.js",
      "--x",
    ]);
  });

  it("keeps a MALLOC_* value the operator set and adds only the missing ones", () => {
    const relaunch = relaunchFor({ ...plain, execArgv: [...HEAP_FLAGS], env: { MALLOC_ARENA_MAX: "8" } });
    expect(relaunch?.args).toEqual([node, ...HEAP_FLAGS, "/srv/dist/main.js", "--x"]);
    expect(relaunch?.env).toEqual({ ...MALLOC_ENV, MALLOC_ARENA_MAX: "8" });
  });

  describe("node dist/main.js", () => {
    let dataDir: string | undefined;
    afterAll(async () => {
      if (dataDir !== undefined) await rm(dataDir, { recursive: true, force: true });
    });

    it("serves from the same process id, now running with the settings", async () => {
      dataDir = await mkdtemp(join(tmpdir(), "mcpsm-memory-"));
      const service = startServiceProcess({ DATA_DIR: dataDir, NODE_OPTIONS: "" });
      try {
        const url = await service.listening(60_000);
        expect((await fetch(new URL("/healthz", url))).status).toBe(200);
        const pid = service.child.pid;
        const cmdline = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0");
        expect(cmdline).toEqual(expect.arrayContaining([...HEAP_FLAGS]));
        const environ = readFileSync(`/proc/${pid}/environ`, "utf8").split("\0");
        expect(environ).toEqual(expect.arrayContaining(Object.entries(MALLOC_ENV).map(([k, v]) => `${k}=${v}`)));
        // A new embedded database is reopened once migrated (its schema-building memory dropped), and serves.
        expect(service.logs.some((entry) => entry.msg === REOPENED)).toBe(true);
        const ready = await fetch(new URL("/readyz", url));
        expect(ready.status).toBe(200);
      } finally {
        expect((await service.stop()).code).toBe(0);
      }
    }, 90_000);

    it("does not reopen an embedded database that had nothing to migrate", async () => {
      const service = startServiceProcess({ DATA_DIR: dataDir!, NODE_OPTIONS: "" });
      try {
        const url = await service.listening(60_000);
        expect((await fetch(new URL("/readyz", url))).status).toBe(200);
        expect(service.logs.some((entry) => entry.msg === REOPENED)).toBe(false);
      } finally {
        expect((await service.stop()).code).toBe(0);
      }
    }, 90_000);
  });
});
