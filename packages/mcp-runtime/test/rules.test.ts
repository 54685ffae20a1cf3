import {
  forwardableHeaders,
  mayReadVariable,
  mcpServerForCaller,
  planUpstreamRequest,
  renderPrompt,
} from "@mcpsm/domain/mcp";
import { bearerToken } from "@mcpsm/domain/schemas";
import { testToolRow } from "@mcpsm/domain/testing";
import { Either } from "effect";
import { describe, expect, it } from "vitest";
import { networkPolicy } from "../src/index.js";

// The pure rules behind tools/call, prompts/get and the network policy, one case per line.

describe("network policy", () => {
  const strict = networkPolicy([]);
  it.each([
    ["8.8.8.8", undefined],
    ["2606:4700:4700::1111", undefined],
    ["127.0.0.1", "loopback"],
    ["::1", "loopback"],
    ["10.0.0.1", "private"],
    ["172.16.5.4", "private"],
    ["192.168.1.1", "private"],
    ["169.254.169.254", "linkLocal"],
    ["fe80::1", "linkLocal"],
    ["fd00::1", "uniqueLocal"],
    ["100.64.0.1", "carrierGradeNat"],
    ["0.0.0.0", "unspecified"],
    ["224.0.0.1", "multicast"],
    ["::ffff:127.0.0.1", "loopback"],
    ["::ffff:169.254.169.254", "linkLocal"],
  ])("%s → %s", (address, refusal) => {
    expect(strict.refusal(address)).toBe(refusal);
  });
  // Issue 10: `http://[::127.0.0.1]` (URL-normalised to `[::7f00:1]`) was let through as "unicast".
  it.each([
    ["::7f00:1", "loopback (as an IPv4-compatible IPv6 address)"],
    ["::a9fe:a9fe", "linkLocal (as an IPv4-compatible IPv6 address)"],
    ["::ffff:0:7f00:1", "loopback (as an IPv4-translated IPv6 address)"],
    ["::ffff:0:a00:1", "private (as an IPv4-translated IPv6 address)"],
    ["64:ff9b::7f00:1", "loopback (embedded in a NAT64 address)"],
    ["64:ff9b::a9fe:a9fe", "linkLocal (embedded in a NAT64 address)"],
    ["2002:7f00:1::", "loopback (embedded in a 6to4 address)"],
    ["2002:c0a8:101::1", "private (embedded in a 6to4 address)"],
    // Teredo keeps the client's IPv4 inverted: 0x80ff fffe → 127.0.0.1.
    ["2001:0:4136:e378:8000:63bf:80ff:fffe", "loopback (embedded in a Teredo address)"],
    // Embedding a public address: the IPv6 range decides as before (NAT64, 6to4 and Teredo stay refused).
    ["64:ff9b::808:808", "rfc6052"],
    ["2002:808:808::", "6to4"],
    ["::", "unspecified"],
    ["::1", "loopback"],
  ])("%s → %s", (address, refusal) => {
    expect(strict.refusal(address)).toBe(refusal);
  });
  it("judges compatible and translated forms by their IPv4 address, allow-list included", () => {
    expect(strict.refusal("::808:808")).toBeUndefined();
    const loopback = networkPolicy(["127.0.0.0/8"]);
    expect(loopback.refusal("::7f00:1")).toBeUndefined();
    expect(loopback.refusal("64:ff9b::7f00:1")).toBe("rfc6052");
  });
  it("allows exactly the configured networks", () => {
    const loopback = networkPolicy(["127.0.0.0/8", "::1/128"]);
    expect(loopback.refusal("127.8.9.10")).toBeUndefined();
    expect(loopback.refusal("::1")).toBeUndefined();
    expect(loopback.refusal("10.0.0.1")).toBe("private");
  });
});

describe("upstream request plan", () => {
  it("joins the base path, encodes placeholders and repeats array query keys", () => {
    const planned = planUpstreamRequest("https://api.example.com/v3/", testToolRow({ path: "/repos/{owner}/{repo}" }), {
      pathArgs: { owner: "a b", repo: "x/y" },
      queryArgs: { q: ["1", 2, true], skip: null },
    });
    expect(Either.getOrThrow(planned).url.href).toBe("https://api.example.com/v3/repos/a%20b/x%2Fy?q=1&q=2&q=true");
  });
  it("keeps the base URL's own query, refuses objects in a path, sends query objects with bracket keys", () => {
    const planned = planUpstreamRequest("https://api.example.com/?key=1", testToolRow({ path: "/a/{id}" }), {
      pathArgs: { id: { nested: 1 } },
      queryArgs: { f: ["a", { b: 1 }] },
    });
    expect(Either.isLeft(planned)).toBe(true);
    if (Either.isLeft(planned)) {
      expect(planned.left._tag).toBe("InvalidArgument");
      if (planned.left._tag === "InvalidArgument")
        expect(planned.left.errors.map((p) => p.path)).toEqual(["pathArgs.id"]);
    }
    const fine = planUpstreamRequest("https://api.example.com/?key=1", testToolRow({ path: "/a" }), {
      queryArgs: { b: 2, f: ["a", { b: 1 }], created: { gt: 1 } },
    });
    expect(Either.getOrThrow(fine).url.href).toBe(
      "https://api.example.com/a?key=1&b=2&f%5B0%5D=a&f%5B1%5D%5Bb%5D=1&created%5Bgt%5D=1",
    );
  });
  it("sends no body with GET or HEAD", () => {
    const get = planUpstreamRequest("https://e.com", testToolRow({ method: "GET" }), { bodyArgs: { a: 1 } });
    expect(Either.getOrThrow(get).body).toBeUndefined();
    const post = planUpstreamRequest("https://e.com", testToolRow({ method: "POST" }), { bodyArgs: [1, 2] });
    expect(Either.getOrThrow(post).body).toEqual({ kind: "bytes", contentType: "application/json", data: "[1,2]" });
  });
});

describe("variables and headers", () => {
  it("lets a provider read only variables made for its upstream", () => {
    expect(mayReadVariable("API_GITHUB_COM", "API_GITHUB_COM_TOKEN")).toBe(true);
    expect(mayReadVariable("API_GITHUB_COM", "API_GITHUB_COM_")).toBe(false);
    expect(mayReadVariable("API_GITHUB_COM", "API_GITHUB_COMX_TOKEN")).toBe(false);
    expect(mayReadVariable("API_GITHUB_COM", "OTHER")).toBe(false);
  });
  it("never forwards credentials, hop-by-hop, framing or MCP headers", () => {
    const kept = forwardableHeaders([
      ["X-Trace", "1"],
      ["Authorization", "Bearer x"],
      ["cookie", "a=b"],
      ["Host", "h"],
      ["Connection", "keep-alive, X-Secret-Hop"],
      ["X-Secret-Hop", "1"],
      ["Transfer-Encoding", "chunked"],
      ["Content-Length", "3"],
      ["Mcp-Session-Id", "s"],
      ["MCP-Protocol-Version", "2025-11-25"],
      ["Accept-Language", "fr"],
    ]);
    expect(kept).toEqual([
      ["x-trace", "1"],
      ["accept-language", "fr"],
    ]);
  });
});

describe("prompt rendering", () => {
  const prompt = {
    id: "p",
    providerId: "q",
    createdAt: new Date(0),
    updatedAt: new Date(0),
    name: "p",
    description: "",
    arguments: [{ name: "who", required: true }, { name: "mood" }],
    messages: [{ role: "user" as const, content: { type: "text" as const, text: "{{ who }}/{{mood}}/{{other}}" } }],
  };
  it("substitutes declared arguments and reports missing required ones", () => {
    const ok = renderPrompt(prompt, { who: "Ada" });
    expect(Either.getOrThrow(ok)[0]?.content.text).toBe("Ada//{{other}}");
    const missing = renderPrompt(prompt, {});
    expect(Either.isLeft(missing) ? missing.left.detail : "").toBe("prompt 'p' needs the argument 'who'");
  });
});

describe("who may call a served server", () => {
  const server = { id: "SrvAAAAAAAA", tenant: "acme" };
  it("lets a server token call only its own server, and an OAuth caller only its tenant's", () => {
    const token = { kind: "server-token", tokenId: "t", serverId: server.id } as const;
    expect(Either.isRight(mcpServerForCaller(token, server.id, server))).toBe(true);
    expect(Either.isRight(mcpServerForCaller({ ...token, serverId: "OtherAAAAAA" }, server.id, server))).toBe(false);
    expect(Either.isRight(mcpServerForCaller({ kind: "oauth", tenant: "acme" }, server.id, server))).toBe(true);
  });
  it("answers another tenant's server exactly like a missing one", () => {
    const foreign = mcpServerForCaller({ kind: "oauth", tenant: "mallory" }, server.id, server);
    const missing = mcpServerForCaller({ kind: "oauth", tenant: "mallory" }, server.id, undefined);
    expect(Either.isLeft(foreign) && foreign.left).toEqual(Either.isLeft(missing) && missing.left);
    expect(Either.isLeft(foreign) && foreign.left._tag).toBe("NotFound");
  });
});

describe("bearer credentials", () => {
  it.each([
    ["Bearer abc.DEF-_~+/=", "abc.DEF-_~+/="],
    ["bearer  tok ", "tok"],
  ])("%s → %s", (header, token) => {
    expect(bearerToken(header)).toBe(token);
  });
  it.each(["Basic abc", "Bearer", "Bearer a b", "Bearer a,b", "Token abc"])("refuses %s", (header) => {
    const parsed = bearerToken(header);
    expect(typeof parsed !== "string" && parsed._tag).toBe("Unauthenticated");
  });
});
