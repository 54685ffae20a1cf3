import { describe, expect, it } from "vitest";
import { compileSafeRegex, synonymsOf, stem, ToolIndex, terms, words } from "../src/index.js";
import { names, tool } from "./support/search.js";

describe("text", () => {
  it("splits identifiers however they are written", () => {
    for (const text of ["getUser", "get_user", "get-user", "get user", "GET /user", "GetUser"])
      expect(words(text), text).toEqual(["get", "user"]);
    expect(words("HTTPServer v2beta /repos/{owner}/{repo_id}")).toEqual([
      "http",
      "server",
      "v",
      "2",
      "beta",
      "repos",
      "owner",
      "repo",
      "id",
    ]);
  });

  it("drops filler words and stems the rest", () => {
    expect(terms("List the repositories of an organization")).toEqual(["list", "repositori", "organ"]);
    expect(terms("repository")).toEqual(terms("repositories"));
    expect(stem("deleting")).toBe(stem("delete"));
    expect(terms("my playlists")).toEqual(["my", "playlist"]);
  });

  it("relates general synonyms both ways", () => {
    expect(synonymsOf(stem("erase"))).toContain(stem("delete"));
    expect(synonymsOf(stem("delete"))).toContain(stem("erase"));
    expect(synonymsOf(stem("zebra")).size).toBe(0);
  });
});

describe("ToolIndex", () => {
  const index = new ToolIndex([
    tool("listUsers", { title: "List users", description: "Lists the accounts of the workspace." }),
    tool("deleteUser", {
      title: "Delete a user",
      method: "DELETE",
      path: "/users/{userId}",
      arguments: [{ name: "userId", description: "the account to remove" }],
    }),
    tool("createInvoice", {
      description: "Creates a draft invoice for a customer.",
      method: "POST",
      path: "/v1/invoices",
      arguments: [{ name: "customer" }, { name: "dueDate", description: "when payment is due" }],
    }),
    tool("sendMessage", { title: "Send a message", path: "/chat.postMessage", method: "POST" }),
  ]);

  it("ranks by relevance over name, title, description, method, path and arguments", () => {
    expect(names(index, "delete user")[0]).toBe("deleteUser");
    expect(names(index, "draft invoice")[0]).toBe("createInvoice");
    expect(names(index, "due date")).toEqual(["createInvoice"]);
    expect(names(index, "postMessage")[0]).toBe("sendMessage");
    expect(names(index, "list users")[0]).toBe("listUsers");
  });

  it("finds words the tool does not use through synonyms, below the tool's own words", () => {
    expect(names(index, "erase a member")[0]).toBe("deleteUser");
    expect(names(index, "bill a buyer")[0]).toBe("createInvoice");
    const outcome = index.search("remove user", 10);
    expect(outcome.ok && outcome.hits[0]?.name).toBe("deleteUser");
  });

  it("honours the limit, answers scores best first and nothing for an empty query", () => {
    const outcome = index.search("user message invoice", 2);
    expect(outcome.ok && outcome.hits.length).toBe(2);
    if (outcome.ok) expect(outcome.hits[0]?.score).toBeGreaterThanOrEqual(outcome.hits[1]?.score ?? 0);
    expect(names(index, "   ")).toEqual([]);
    expect(names(index, "user", 0)).toEqual([]);
    expect(names(index, "the of and")).toEqual([]);
  });

  it("answers title and description only when the tool has them", () => {
    const outcome = index.search("invoice", 1);
    expect(outcome.ok && outcome.hits[0]).toEqual({
      name: "createInvoice",
      description: "Creates a draft invoice for a customer.",
      score: expect.any(Number),
    });
  });

  it("reads /pattern/ as a case-insensitive regex over names and titles, names first", () => {
    expect(names(index, "/^(LIST|delete)user/")).toEqual(["listUsers", "deleteUser"]);
    expect(names(index, "/a message$/")).toEqual(["sendMessage"]);
    expect(names(index, "/user/", 1)).toEqual(["listUsers"]);
    // Only names and titles: the description's words do not match.
    expect(names(index, "/draft/")).toEqual([]);
    expect(index.search("/(/", 10)).toMatchObject({ ok: false, message: expect.stringMatching(/invalid regular/) });
  });

  it("is not fooled by a long query", () => {
    expect(names(index, `${"zzz ".repeat(5_000)}delete user`)).toEqual([]);
    expect(names(index, `delete user ${"zzz ".repeat(5_000)}`)[0]).toBe("deleteUser");
  });
});

describe("compileSafeRegex", () => {
  it("matches linearly: a catastrophic-backtracking pattern answers at once", () => {
    const regex = compileSafeRegex("(a+)+$");
    expect(regex.ok).toBe(true);
    if (regex.ok) {
      expect(regex.test(`${"a".repeat(5_000)}!`)).toBe(false);
      expect(regex.test("AAA")).toBe(true);
    }
  });

  it("refuses what RE2 cannot run in linear time, and long patterns", () => {
    for (const pattern of ["(a)\\1", "(?=a)", "(?<!a)b", "((a{100}){100}){100}", "[", "a".repeat(201)])
      expect(compileSafeRegex(pattern).ok, pattern).toBe(false);
  });
});
