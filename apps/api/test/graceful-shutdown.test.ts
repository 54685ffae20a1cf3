import { type ChildProcess, spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mintDevToken } from "../src/auth/dev-auth.js";

// The real start-up path (dist/main.js) in a child process: SIGTERM must let an in-flight request finish.
const main = join(import.meta.dirname, "..", "dist", "main.js");

let dataDir: string;
let child: ChildProcess;
let url: URL;

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), "mcpsm-shutdown-"));
  child = spawn(process.execPath, [main], {
    env: { ...process.env, PORT: "0", HOST: "127.0.0.1", METRICS_PORT: "0", DATA_DIR: dataDir, LOG_LEVEL: "info" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const lines = createInterface({ input: child.stdout! });
  url = await new Promise<URL>((resolve, reject) => {
    child.once("exit", (code) => reject(new Error(`service exited early with ${code}`)));
    lines.on("line", (line) => {
      const entry = JSON.parse(line) as { msg?: string; url?: string };
      if (entry.msg === "listening" && entry.url) resolve(new URL(entry.url));
    });
  });
});

afterAll(async () => {
  if (child.exitCode === null) child.kill("SIGKILL");
  await rm(dataDir, { recursive: true, force: true });
});

describe("graceful shutdown", () => {
  it("finishes a request in flight when SIGTERM arrives, refuses new connections, then exits 0", async () => {
    const token = await mintDevToken(dataDir, { subject: "shutdown" });
    const body = JSON.stringify({ variable: { type: "ENV", name: "IN_FLIGHT", value: "x".repeat(1000) } });
    const half = Math.floor(body.length / 2);
    const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
    const req = request(new URL("/variables", url), {
      method: "POST",
      agent: false,
      headers: {
        Authorization: `Bearer ${token}`,
        "Content-Type": "application/json",
        "Content-Length": Buffer.byteLength(body),
      },
    });
    const response = new Promise<{ status: number; body: string }>((resolve, reject) => {
      req.on("error", reject);
      req.on("response", (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (chunk) => (text += chunk));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body: text }));
      });
    });
    // Headers and half the body now; the rest only after the signal.
    req.write(body.slice(0, half));
    // A complete round trip on another connection proves the server is running and has read the first one.
    expect((await fetch(new URL("/healthz", url))).status).toBe(200);
    child.kill("SIGTERM");
    // The service says it is stopping on stderr (after the start-up line naming the console, which may still
    // be waiting in the pipe): the listener is closed once that line is written.
    await new Promise<void>((resolve) => {
      let said = "";
      const listen = (chunk: Buffer) => {
        said += chunk.toString("utf8");
        if (!said.includes("SIGTERM:")) return;
        child.stderr!.off("data", listen);
        resolve();
      };
      child.stderr!.on("data", listen);
    });
    await expect(fetch(new URL("/healthz", url))).rejects.toThrow();
    req.end(body.slice(half));
    const answered = await response;
    expect(answered.status).toBe(201);
    expect(JSON.parse(answered.body).variable.name).toBe("IN_FLIGHT");
    expect(await exited).toBe(0);
  });
});
