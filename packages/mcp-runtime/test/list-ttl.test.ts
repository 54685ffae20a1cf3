import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import type { McpServerView } from "@mcpsm/domain/mcp";
import { describe, expect, it } from "vitest";
import { listTtlMsOf, MAX_LIST_TTL_MS } from "../src/list-ttl.js";
import { ERAS } from "./support/harness.js";
import { useFixtureSuite } from "./support/mcp-suite.js";

// docs/api-rules.md §22, cache hints: a list result's `ttlMs` is a tenth of the age of the server's revision
// (the latest change of the server or its providers) when compiled, in whole seconds, at most five minutes;
// 2026-07-28 only.

const view = (server: number, ...providers: Array<number>) =>
  ({
    server: { updatedAt: new Date(server) },
    providersById: new Map(providers.map((at, i) => [`p${i}`, { updatedAt: new Date(at) }])),
  }) as unknown as McpServerView;

describe("listTtlMsOf", () => {
  it("is a tenth of the revision's age, from its latest change, in whole seconds", () => {
    expect(listTtlMsOf(view(0), 60_000)).toBe(6_000);
    expect(listTtlMsOf(view(0, 30_000), 60_000)).toBe(3_000);
    expect(listTtlMsOf(view(0), 9_999)).toBe(0);
    expect(listTtlMsOf(view(0), 15_500)).toBe(1_000);
  });
  it("never more than five minutes, never negative", () => {
    expect(listTtlMsOf(view(0), 24 * 3_600_000)).toBe(MAX_LIST_TTL_MS);
    expect(listTtlMsOf(view(10_000), 0)).toBe(0);
  });
});

const suite = useFixtureSuite({ upstreamAllowedNetworks: ["127.0.0.0/8"] });

describe.each(ERAS)("protocol %s", (era) => {
  it("list results carry the revision's ttlMs (2026-07-28) or none (2025-11-25)", async () => {
    const raw: Array<Record<string, unknown>> = [];
    const client = new Client(
      { name: "ttl-test", version: "1.0.0" },
      era === "2026-07-28" ? { versionNegotiation: { mode: { pin: "2026-07-28" } } } : {},
    );
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${suite.mcp.url}/mcp/${suite.fixture.server.id}`), {
        requestInit: { headers: { Authorization: `Bearer ${suite.fixture.token.value}` } },
        fetch: async (input, init) => {
          const response = await fetch(input, init);
          if (response.headers.get("content-type")?.startsWith("application/json"))
            raw.push(((await response.clone().json()) as { result?: Record<string, unknown> }).result ?? {});
          return response;
        },
      }),
    );
    const listed = await client.listTools();
    await client.listPrompts();
    // The fixture's server was just made: its revision is seconds old.
    if (era === "2026-07-28") {
      const [tools, prompts] = raw.slice(-2);
      expect(tools).toMatchObject({ ttlMs: 0, cacheScope: "private" });
      expect(prompts).toMatchObject({ ttlMs: 0, cacheScope: "private" });
    } else {
      // 2025-11-25 has no cache hints (and its answers may come as event streams): none in the result.
      expect(listed).not.toHaveProperty("ttlMs");
    }
    await client.close();
  });
});
