import { Option } from "effect";
import { describe, expect, it } from "vitest";
import { useFixtureSuite } from "./support/mcp-suite.js";

// Issue 16, browser clients: preflights from allowed origins are answered without a credential, answers are
// readable by them (the 401 challenge included), and the DNS-rebinding rules still refuse everything else.

const suite = useFixtureSuite({
  upstreamAllowedNetworks: ["127.0.0.0/8"],
  allowedOrigins: Option.some(["localhost", "inspector.example.com"]),
});

const endpoint = () => `${suite.mcp.url}/mcp/${suite.fixture.server.id}`;

const preflight = (origin: string, headers: Record<string, string> = {}) =>
  fetch(endpoint(), {
    method: "OPTIONS",
    headers: {
      Origin: origin,
      "Access-Control-Request-Method": "POST",
      "Access-Control-Request-Headers": "authorization,content-type,mcp-protocol-version",
      ...headers,
    },
  });

const INITIALIZE = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "browser", version: "1" } },
};

const post = (origin: string, token?: string) =>
  fetch(endpoint(), {
    method: "POST",
    headers: {
      Origin: origin,
      "Content-Type": "application/json",
      Accept: "application/json, text/event-stream",
      ...(token !== undefined ? { Authorization: `Bearer ${token}` } : {}),
    },
    body: JSON.stringify(INITIALIZE),
  });

describe("CORS on /mcp/{id}", () => {
  it("answers a preflight from an allowed origin without authentication", async () => {
    const res = await preflight("https://inspector.example.com");
    expect(res.status).toBe(204);
    expect(res.headers.get("access-control-allow-origin")).toBe("https://inspector.example.com");
    expect(res.headers.get("access-control-allow-methods")).toContain("POST");
    expect(res.headers.get("access-control-allow-headers")?.toLowerCase()).toContain("mcp-protocol-version");
    expect(res.headers.get("access-control-allow-headers")?.toLowerCase()).toContain("authorization");
    expect(res.headers.get("access-control-allow-credentials")).toBeNull();
    expect(res.headers.get("www-authenticate")).toBeNull();
  });

  it("lists the MCP headers when the preflight names none, and for any port of an allowed host", async () => {
    const res = await fetch(endpoint(), {
      method: "OPTIONS",
      headers: { Origin: "http://localhost:6274", "Access-Control-Request-Method": "POST" },
    });
    expect(res.status).toBe(204);
    expect(res.headers.get("access-control-allow-origin")).toBe("http://localhost:6274");
    expect(res.headers.get("access-control-allow-headers")).toContain("Mcp-Session-Id");
  });

  it("refuses a preflight from another origin, or with a Host outside the allow-list (DNS rebinding)", async () => {
    const evil = await preflight("http://evil.example");
    expect(evil.status).toBe(403);
    expect(evil.headers.get("access-control-allow-origin")).toBeNull();
    const rebound = await suite.mcp.runtime.fetch(
      new Request(endpoint(), {
        method: "OPTIONS",
        headers: { Host: "evil.example", Origin: "http://localhost:6274", "Access-Control-Request-Method": "POST" },
      }),
    );
    expect(rebound.status).toBe(403);
  });

  it("lets the allowed origin read the 401 challenge (WWW-Authenticate exposed) and the MCP answers", async () => {
    const challenged = await post("https://inspector.example.com");
    expect(challenged.status).toBe(401);
    expect(challenged.headers.get("access-control-allow-origin")).toBe("https://inspector.example.com");
    const exposed = challenged.headers.get("access-control-expose-headers") ?? "";
    for (const name of ["WWW-Authenticate", "Mcp-Session-Id", "MCP-Protocol-Version", "Retry-After"])
      expect(exposed).toContain(name);
    expect(challenged.headers.get("www-authenticate")).toContain("resource_metadata=");
    const ok = await post("https://inspector.example.com", suite.fixture.token.value);
    expect(ok.status).toBe(200);
    expect(ok.headers.get("access-control-allow-origin")).toBe("https://inspector.example.com");
    expect(ok.headers.get("vary")).toContain("Origin");
    await ok.body?.cancel();
  });

  it("adds no CORS headers for requests without Origin (non-browser clients)", async () => {
    const res = await fetch(endpoint(), {
      method: "POST",
      headers: { "Content-Type": "application/json", Accept: "application/json, text/event-stream" },
      body: JSON.stringify(INITIALIZE),
    });
    expect(res.status).toBe(401);
    expect(res.headers.get("access-control-allow-origin")).toBeNull();
  });
});
