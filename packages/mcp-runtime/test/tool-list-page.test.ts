import type { Tool } from "@modelcontextprotocol/server";
import { Either } from "effect";
import { describe, expect, it } from "vitest";
import { toolListPage as pageOrError } from "../src/tool-list-page.js";

const toolListPage = (...args: Parameters<typeof pageOrError>) => Either.getOrThrowWith(pageOrError(...args), (e) => e);

const tools = Array.from(
  { length: 25 },
  (_, i): Tool => ({
    name: `t${i}`,
    inputSchema: { type: "object", properties: {}, additionalProperties: false },
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true },
  }),
);

describe("toolListPage", () => {
  it("answers a list that fits in one page whole, without a cursor", () => {
    expect(toolListPage(tools, undefined, 25)).toEqual({ tools });
  });

  it("pages with an opaque cursor until the end", () => {
    const first = toolListPage(tools, undefined, 10);
    expect(first.tools.map((t) => t.name)).toEqual(tools.slice(0, 10).map((t) => t.name));
    expect(first.nextCursor).toMatch(/^[A-Za-z0-9_-]+$/);
    const second = toolListPage(tools, first.nextCursor, 10);
    const third = toolListPage(tools, second.nextCursor, 10);
    expect(third.tools.map((t) => t.name)).toEqual(["t20", "t21", "t22", "t23", "t24"]);
    expect(third.nextCursor).toBeUndefined();
    // A cursor past the end (the list shrank between pages) is an empty last page, not an error.
    expect(toolListPage(tools.slice(0, 5), first.nextCursor, 10)).toEqual({ tools: [] });
  });

  it("refuses a cursor it did not make", () => {
    for (const cursor of ["", "abc", "bzA", Buffer.from("o-1").toString("base64url"), "x".repeat(100)])
      expect(Either.getLeft(pageOrError(tools, cursor, 10)), cursor).toMatchObject({
        value: { _tag: "InvalidArgument", detail: "invalid cursor" },
      });
  });
});
