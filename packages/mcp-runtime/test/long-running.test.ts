import type { Client } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { textOf } from "./support/fixture.js";
import { connect, ERAS, type RunningMcp, type Services } from "./support/harness.js";
import { startJobsServer } from "./support/jobs-server.js";
import type { OperationsUpstream } from "./support/operations-upstream.js";

// docs/api-rules.md §22: an upstream answering `202 Accepted` + a status URL is followed within the call (the
// 2025-11-25 era, and 2026-07-28 callers without the tasks extension), with progress when asked; the final
// answer, a failure, or the deadline is the result. (Tasks: upstream-tasks.test.ts.)

let services: Services;
let upstream: OperationsUpstream;
let mcp: RunningMcp;
let serverId: string;
let token: string;

beforeAll(async () => {
  ({ services, upstream, mcp, serverId, token } = await startJobsServer(
    { upstreamPollIntervalMs: 10, upstreamCallDeadlineMs: 400 },
    async (m, providerId, post) => {
      await post("elsewhere", "/elsewhere");
      await m.tool(providerId, { name: "stream", method: "GET", path: "/stream" });
      await m.tool(providerId, { name: "textStream", method: "GET", path: "/text-stream" });
    },
  ));
});

afterAll(async () => {
  await mcp?.close();
  await upstream?.close();
  await services?.dispose();
});

describe.each(ERAS)("protocol %s, without the tasks extension", (era) => {
  let client: Client;
  beforeAll(async () => {
    client = await connect(mcp.url, serverId, era, token);
  });
  afterAll(async () => {
    await client?.close();
  });

  it("follows the status URL until done, with the call's credentials, one look per answer", async () => {
    const before = upstream.looks.length;
    const progress: Array<{ progress: number; message?: string }> = [];
    const result = await client.callTool({ name: "threeLooks" }, { onprogress: (p) => progress.push(p) });
    expect(result.isError).toBeFalsy();
    expect(JSON.parse(textOf(result))).toMatchObject({ status: "Succeeded", output: { size: 42 } });
    const looks = upstream.looks.slice(before);
    // 3 × 202, one 200 whose body still says Running, then the final 200.
    expect(looks).toHaveLength(5);
    expect(looks.every((look) => look.apiKey === "the-key")).toBe(true);
    // A notification when the operation was accepted, then one per look that found it still running.
    expect(progress.map((p) => p.progress)).toEqual([0, 1, 2, 3, 4]);
    expect(progress[4]?.message).toBe("the upstream operation is running");
  });

  it("an operation that fails is a tool error with the upstream's answer", async () => {
    const result = await client.callTool({ name: "failing" });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain("the job crashed");
  });

  it("an operation that never finishes ends at the call's deadline, as a tool error", async () => {
    const result = await client.callTool({ name: "forever" });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toBe("the upstream operation did not finish within 400 ms");
  });

  it("a status URL on another host is not followed: the 202 is the answer", async () => {
    const before = upstream.requests.length;
    const result = await client.callTool({ name: "elsewhere" });
    expect(JSON.parse(textOf(result))).toEqual({ queued: true });
    expect(upstream.requests.slice(before)).toEqual(["POST /elsewhere"]);
  });

  it("an event stream is relayed as progress; its last JSON event is the result", async () => {
    const progress: Array<{ progress: number; message?: string }> = [];
    const result = await client.callTool({ name: "stream" }, { onprogress: (p) => progress.push(p) });
    expect(JSON.parse(textOf(result))).toEqual({ total: 3, ok: true });
    expect(progress.map((p) => p.message)).toEqual(["progress: first step", "second step", '{"total":3,"ok":true}']);
  });

  it("an event stream of text is collected as the result", async () => {
    const result = await client.callTool({ name: "textStream" });
    expect(textOf(result)).toBe("first step\nsecond step\nthird line");
  });
});
