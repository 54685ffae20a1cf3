import { readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { HEAP_FLAGS, relaunchFor } from "../src/launcher/heap-settings.js";
import { startServiceProcess } from "./support/service-process.js";

const node = "/usr/bin/node";
const plain = { execPath: node, execArgv: [], argv: [node, "/srv/dist/main.js", "--x"], env: {} };

describe("heap settings at start-up", () => {
  it("relaunches a process started without them, keeping its flags, script and arguments", () => {
    expect(relaunchFor({ ...plain, execArgv: ["--enable-source-maps"] })).toEqual({
      file: node,
      args: [node, ...HEAP_FLAGS, "--enable-source-maps", "/srv/dist/main.js", "--x"],
    });
  });

  it("does not relaunch the relaunched process (no loop)", () => {
    const relaunched = relaunchFor(plain);
    expect(relaunched).toBeDefined();
    expect(relaunchFor({ ...plain, execArgv: relaunched!.args.slice(1, 1 + HEAP_FLAGS.length) })).toBeUndefined();
  });

  it("leaves the heap to the operator's own flags, on the command line or in NODE_OPTIONS", () => {
    expect(relaunchFor({ ...plain, execArgv: ["--max-semi-space-size=64"] })).toBeUndefined();
    expect(relaunchFor({ ...plain, execArgv: ["--max_semi_space_size=64"] })).toBeUndefined();
    expect(relaunchFor({ ...plain, env: { NODE_OPTIONS: "--inspect --max-semi-space-size=8" } })).toBeUndefined();
    expect(relaunchFor({ ...plain, env: { NODE_OPTIONS: "--max-heap-size=512" } })).toBeUndefined();
    expect(relaunchFor({ ...plain, env: { NODE_OPTIONS: "--cpu-prof" } })).toBeDefined();
  });

  describe("node dist/main.js", () => {
    let dataDir: string | undefined;
    afterAll(async () => {
      if (dataDir !== undefined) await rm(dataDir, { recursive: true, force: true });
    });

    it("serves from the same process id, now running with the heap flags", async () => {
      dataDir = await mkdtemp(join(tmpdir(), "mcpsm-heap-"));
      const service = startServiceProcess({ DATA_DIR: dataDir, NODE_OPTIONS: "" });
      try {
        const url = await service.listening(60_000);
        expect((await fetch(new URL("/healthz", url))).status).toBe(200);
        const cmdline = readFileSync(`/proc/${service.child.pid}/cmdline`, "utf8").split("\0");
        expect(cmdline).toEqual(expect.arrayContaining([...HEAP_FLAGS]));
      } finally {
        expect((await service.stop()).code).toBe(0);
      }
    }, 90_000);
  });
});
