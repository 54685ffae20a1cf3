import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { Effect } from "effect";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type EchoUpstream, startEchoUpstream } from "./support/echo-upstream.js";
import { startTestService, type Tenant, type TestService } from "./support/harness.js";

// docs/api-rules.md §20, the approval half: a call that needs approval sends the caller to the approval page
// (URL elicitation in its era, text otherwise); approved once, for that caller and those exact arguments.

let svc: TestService;
let upstream: EchoUpstream;
let owner: Tenant;
const ids = { server: "", token: "", other: "" };

const connect = async (token: string, era: "2025-11-25" | "2026-07-28", onUrl?: (url: string) => Promise<void>) => {
  const client = new Client(
    { name: "approval-test", version: "1" },
    {
      ...(onUrl === undefined ? {} : { capabilities: { elicitation: { url: {} } } }),
      ...(era === "2026-07-28" ? { versionNegotiation: { mode: { pin: era } } } : {}),
    },
  );
  if (onUrl !== undefined)
    client.setRequestHandler("elicitation/create", async (request) => {
      await onUrl(String((request.params as { url?: string }).url));
      return { action: "accept" };
    });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${svc.url}/mcp/${ids.server}`), {
      requestInit: { headers: { Authorization: `Bearer ${token}` } },
    }),
  );
  return client;
};

/** The value of one series of the service's metrics (0 when absent). */
const metric = async (series: string) => {
  const text = await (await fetch(svc.metricsUrl as string)).text();
  const line = text.split("\n").find((l) => l.startsWith(`${series} `));
  return line === undefined ? 0 : Number(line.slice(series.length + 1));
};

const textOf = (result: { content?: unknown }) => String((result.content as Array<{ text?: string }>)[0]?.text);
const approvalIdIn = (text: string) => /\/approvals\/([A-Za-z0-9]{11})/.exec(text)?.[1] as string;

/** Opens the page like a browser and presses a button. */
const decideOnPage = async (url: string, decision: "APPROVE" | "DENY") => {
  const shown = await fetch(url);
  expect(shown.status).toBe(200);
  expect(shown.headers.get("x-frame-options")).toBe("DENY");
  const html = await shown.text();
  const csrf = /name="csrf" value="([^"]+)"/.exec(html)?.[1] as string;
  const cookie = (shown.headers.get("set-cookie") ?? "").split(";")[0] as string;
  const forged = await fetch(url, {
    method: "POST",
    headers: { "Content-Type": "application/x-www-form-urlencoded" },
    body: `csrf=${csrf}&decision=${decision}`,
  });
  expect(forged.status).toBe(403);
  const sent = await fetch(url, {
    method: "POST",
    headers: { "Content-Type": "application/x-www-form-urlencoded", Cookie: cookie },
    body: `csrf=${csrf}&decision=${decision}`,
  });
  expect(sent.status).toBe(200);
  return html;
};

beforeAll(async () => {
  upstream = await startEchoUpstream();
  svc = await startTestService({ mcp: { upstreamAllowedNetworks: ["127.0.0.0/8"] }, metrics: true });
  owner = await svc.tenant("approvals");
  const provider = await owner.api.post("/providers", { provider: { name: "Things", baseURL: upstream.baseURL } });
  await owner.api.post(`/providers/${provider.body.provider.id}/tools`, {
    tool: {
      name: "deleteThing",
      method: "DELETE",
      path: "/things",
      queryArgsJSONSchema: { type: "object", properties: { id: { type: "string" }, apiToken: { type: "string" } } },
    },
  });
  await owner.api.post(`/providers/${provider.body.provider.id}/tools`, {
    tool: { name: "listThings", method: "GET", path: "/things" },
  });
  const server = await owner.api.post("/servers", {
    server: { name: "Guarded", approvalPolicy: "DESTRUCTIVE", providers: [{ id: provider.body.provider.id }] },
  });
  ids.server = server.body.server.id;
  ids.token = (await owner.api.post(`/servers/${ids.server}/tokens`, { token: { name: "a" } })).body.token.value;
  ids.other = (await owner.api.post(`/servers/${ids.server}/tokens`, { token: { name: "b" } })).body.token.value;
});

afterAll(async () => {
  await svc?.close();
  await upstream?.close();
});

describe("approval before a destructive call", () => {
  it("a read runs at once; without URL elicitation the text holds the page's URL, and the API approves", async () => {
    for (const era of ["2025-11-25", "2026-07-28"] as const) {
      const client = await connect(ids.token, era);
      try {
        const read = await client.callTool({ name: "listThings", arguments: {} });
        expect(read.isError ?? false).toBe(false);
        const before = upstream.seen.length;
        const asked = await client.callTool({ name: "deleteThing", arguments: { queryArgs: { id: `x-${era}` } } });
        expect(asked.isError).toBe(true);
        const id = approvalIdIn(textOf(asked));
        expect(textOf(asked)).toContain(`${svc.url}/approvals/${id}`);
        expect(upstream.seen.length).toBe(before);
        const listed = await owner.api.get("/approvals");
        expect(listed.body.approvals.map((a: { id: string }) => a.id)).toContain(id);
        // Another tenant cannot decide it; the owner can, once.
        const stranger = await svc.tenant("stranger");
        const refused = await stranger.api.post(`/approvals/${id}/decision`, { decision: "APPROVE" });
        expect(refused.status, refused.text).toBe(404);
        const decided = await owner.api.post(`/approvals/${id}/decision`, { decision: "APPROVE" });
        expect(decided.status, decided.text).toBe(200);
        expect((await owner.api.post(`/approvals/${id}/decision`, { decision: "DENY" })).status).toBe(409);
        const audit = await owner.api.get(`/audit-events?targetID=${id}`);
        expect(audit.body.auditEvents.map((e: { operation: string }) => e.operation)).toEqual(["decideApproval"]);
        // Other arguments are another call: asked again.
        const otherArgs = await client.callTool({ name: "deleteThing", arguments: { queryArgs: { id: "y" } } });
        expect(approvalIdIn(textOf(otherArgs))).not.toBe(id);
        const ran = await client.callTool({ name: "deleteThing", arguments: { queryArgs: { id: `x-${era}` } } });
        expect(ran.isError ?? false, textOf(ran)).toBe(false);
        expect(upstream.seen.at(-1)?.url).toBe(`/things?id=x-${era}`);
        // Used once: the same call asks again.
        const replay = await client.callTool({ name: "deleteThing", arguments: { queryArgs: { id: `x-${era}` } } });
        expect(replay.isError).toBe(true);
      } finally {
        await client.close();
      }
    }
  });

  it("with URL elicitation (2026-07-28) the person approves on the page and the client's retry runs", async () => {
    let page = "";
    const client = await connect(ids.token, "2026-07-28", async (url) => {
      page = await decideOnPage(url, "APPROVE");
    });
    try {
      const result = await client.callTool({
        name: "deleteThing",
        arguments: { queryArgs: { id: "z", apiToken: "very-secret-value" } },
      });
      expect(result.isError ?? false, textOf(result)).toBe(false);
      expect(page).toContain("deleteThing");
      expect(page).not.toContain("very-secret-value");
    } finally {
      await client.close();
    }
  });

  it("an approval serves only its caller; a denial answers the caller once", async () => {
    const alice = await connect(ids.token, "2026-07-28");
    const bob = await connect(ids.other, "2026-07-28");
    try {
      const asked = await alice.callTool({ name: "deleteThing", arguments: { queryArgs: { id: "w" } } });
      const id = approvalIdIn(textOf(asked));
      await owner.api.post(`/approvals/${id}/decision`, { decision: "APPROVE" });
      const other = await bob.callTool({ name: "deleteThing", arguments: { queryArgs: { id: "w" } } });
      expect(approvalIdIn(textOf(other))).not.toBe(id);
      await owner.api.post(`/approvals/${approvalIdIn(textOf(other))}/decision`, { decision: "DENY" });
      const denied = await bob.callTool({ name: "deleteThing", arguments: { queryArgs: { id: "w" } } });
      expect(textOf(denied)).toContain("denied");
    } finally {
      await alice.close();
      await bob.close();
    }
  });

  it("an approval expires after its 10 minutes: undecided or unused, the call asks again", async () => {
    // No waiting: the test moves the stored expiry into the past, as 10 minutes would.
    const expire = (id: string, status: "PENDING" | "APPROVED") =>
      Effect.runPromise(
        svc.storage.transaction((tx) =>
          Effect.flatMap(tx.findApproval(id), (row) =>
            tx.updateApproval({ ...(row as NonNullable<typeof row>), expiresAt: new Date(Date.now() - 1) }, status),
          ),
        ),
      );
    const client = await connect(ids.token, "2026-07-28");
    try {
      const call = { name: "deleteThing", arguments: { queryArgs: { id: "late" } } };
      const undecided = approvalIdIn(textOf(await client.callTool(call)));
      expect(await expire(undecided, "PENDING")).toBe(true);
      expect((await owner.api.get("/approvals")).body.approvals.map((a: { id: string }) => a.id)).not.toContain(
        undecided,
      );
      const late = await owner.api.post(`/approvals/${undecided}/decision`, { decision: "APPROVE" });
      expect(late.status, late.text).toBe(409);
      expect(late.body.detail).toContain("expired");
      expect((await fetch(`${svc.url}/approvals/${undecided}`)).status).toBe(404);
      const before = upstream.seen.length;
      const requested = await metric("mcpsm_approvals_requested_total");
      const again = approvalIdIn(textOf(await client.callTool(call)));
      expect(await metric("mcpsm_approvals_requested_total")).toBe(requested + 1);
      expect(again).not.toBe(undecided);

      expect((await owner.api.post(`/approvals/${again}/decision`, { decision: "APPROVE" })).status).toBe(200);
      expect(await expire(again, "APPROVED")).toBe(true);
      const unused = await client.callTool(call);
      expect(unused.isError).toBe(true);
      expect([undecided, again]).not.toContain(approvalIdIn(textOf(unused)));
      expect(upstream.seen.length).toBe(before);

      // The sweep deletes both and counts them once each: one never decided, one approved and never used.
      const undecidedCount = await metric('mcpsm_approvals_expired_total{state="undecided"}');
      const unusedCount = await metric('mcpsm_approvals_expired_total{state="unused"}');
      await svc.sweepApprovals();
      await svc.sweepApprovals();
      expect(await metric('mcpsm_approvals_expired_total{state="undecided"}')).toBe(undecidedCount + 1);
      expect(await metric('mcpsm_approvals_expired_total{state="unused"}')).toBe(unusedCount + 1);
      expect((await owner.api.post(`/approvals/${undecided}/decision`, { decision: "APPROVE" })).status).toBe(404);
    } finally {
      await client.close();
    }
  });

  it("counts approvals asked, decided by outcome and channel, and the time to decide", async () => {
    const series = [
      "mcpsm_approvals_requested_total",
      'mcpsm_approvals_decided_total{outcome="approved",channel="api"}',
      'mcpsm_approvals_decided_total{outcome="denied",channel="api"}',
      'mcpsm_approvals_decided_total{outcome="approved",channel="page"}',
      'mcpsm_approval_decision_seconds_count{outcome="approved"}',
      'mcpsm_approval_decision_seconds_count{outcome="denied"}',
    ];
    const read = () => Promise.all(series.map(metric));
    const before = await read();
    const client = await connect(ids.token, "2025-11-25");
    try {
      const ask = (id: string) => client.callTool({ name: "deleteThing", arguments: { queryArgs: { id } } });
      const first = approvalIdIn(textOf(await ask("m1")));
      // Asking again while it waits is the same approval: not counted twice.
      expect(approvalIdIn(textOf(await ask("m1")))).toBe(first);
      const second = approvalIdIn(textOf(await ask("m2")));
      const third = approvalIdIn(textOf(await ask("m3")));
      await owner.api.post(`/approvals/${first}/decision`, { decision: "APPROVE" });
      await owner.api.post(`/approvals/${second}/decision`, { decision: "DENY" });
      // A refused decision (already decided) counts nothing.
      expect((await owner.api.post(`/approvals/${second}/decision`, { decision: "APPROVE" })).status).toBe(409);
      await decideOnPage(`${svc.url}/approvals/${third}`, "APPROVE");
    } finally {
      await client.close();
    }
    const after = await read();
    expect(after.map((value, i) => value - (before[i] as number))).toEqual([3, 1, 1, 1, 2, 1]);
  });
});
