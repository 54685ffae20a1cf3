import { describe, expect, it } from "vitest";
import {
  everydayWords,
  intentFactor,
  lastSegment,
  methodIntent,
  ONE_LINE_MAX,
  oneLine,
  type SearchableTool,
  stem,
  ToolIndex,
  words,
} from "../src/index.js";
import { names, tool } from "./support/search.js";

// The retrieval pipeline's rules: REST intent, everyday words, concept-level matching, result shape,
// determinism, and bounded regex queries on a server of realistic size.

const op = (name: string, method: string, path: string, extra: Partial<SearchableTool> = {}): SearchableTool =>
  tool(name, { method, path, ...extra });

/** One REST resource with its five operations, as an import would make them. */
const resource = (plural: string, singular: string): Array<SearchableTool> => {
  const path = `/${plural.toLowerCase()}`;
  return [
    op(`list${plural}`, "GET", path, { title: `List ${plural.toLowerCase()}` }),
    op(`create${singular}`, "POST", path, { title: `Create a ${singular.toLowerCase()}` }),
    op(`get${singular}`, "GET", `${path}/{id}`, { title: `Get a ${singular.toLowerCase()}` }),
    op(`update${singular}`, "PATCH", `${path}/{id}`, { title: `Update a ${singular.toLowerCase()}` }),
    op(`delete${singular}`, "DELETE", `${path}/{id}`, { title: `Delete a ${singular.toLowerCase()}` }),
  ];
};

describe("REST intent", () => {
  it("reads the query's first verb or question word as the methods it wants, likeliest first", () => {
    const intent = (query: string) => methodIntent(words(query).map(stem));
    expect(intent("erase the invoice")).toEqual(["DELETE", "POST"]);
    expect(intent("who is in this channel")).toEqual(["GET"]);
    expect(intent("make a new folder")).toEqual(["POST", "PUT"]);
    expect(intent("rename a board")).toEqual(["PATCH", "PUT", "POST"]);
    expect(intent("invoice folder")).toBeUndefined();
    expect(intentFactor(["DELETE", "POST"], "DELETE")).toBeGreaterThan(intentFactor(["DELETE", "POST"], "POST"));
    expect(intentFactor(["DELETE", "POST"], "POST")).toBeGreaterThan(intentFactor(["DELETE", "POST"], "GET"));
    expect(intentFactor(undefined, "GET")).toBe(1);
  });

  it("takes the operation's own verb from the path's last literal segment", () => {
    expect(lastSegment("/repos/{owner}/{repo}/issues/{n}/lock")).toBe("lock");
    expect(lastSegment("/campaigns/{id}/actions/cancel-send")).toBe("cancel-send");
    expect(lastSegment("/chat.postMessage")).toBe("postMessage");
    expect(lastSegment("/2010-04-01/Accounts/{AccountSid}/Messages.json")).toBe("Messages");
    expect(lastSegment("/files/{file_id}/thumbnail.{extension}")).toBe("thumbnail");
    expect(lastSegment("/users/{id}")).toBe("users");
  });

  it("ranks the operation whose method fits the verb first, singular or plural", () => {
    const index = new ToolIndex([...resource("Invoices", "Invoice"), ...resource("Customers", "Customer")]);
    expect(names(index, "remove an invoice")[0]).toBe("deleteInvoice");
    expect(names(index, "add customer")[0]).toBe("createCustomer");
    expect(names(index, "show all the invoices")[0]).toBe("listInvoices");
    expect(names(index, "edit customers")[0]).toBe("updateCustomer");
  });

  it("finds an action sub-resource by its verb", () => {
    const index = new ToolIndex([
      ...resource("Issues", "Issue"),
      op("lockIssue", "PUT", "/issues/{id}/lock"),
      op("unlockIssue", "DELETE", "/issues/{id}/lock"),
    ]);
    expect(names(index, "lock an issue")[0]).toBe("lockIssue");
  });

  it("can be switched off (the bench's ablation)", () => {
    const tools = [
      op("a", "GET", "/things/{id}", { title: "Thing" }),
      op("b", "DELETE", "/things/{id}", { title: "Thing" }),
    ];
    expect(names(new ToolIndex(tools), "delete thing")[0]).toBe("b");
    expect(names(new ToolIndex(tools, { intent: false, thesaurus: false, everyday: false }), "fetch thing")).toEqual([
      "a",
      "b",
    ]);
  });
});

describe("everyday words", () => {
  it("map one way to the words APIs use", () => {
    expect(everydayWords(stem("directory"))).toContain(stem("folder"));
    expect(everydayWords(stem("online"))).toContain(stem("presence"));
    expect(everydayWords(stem("folder"))).not.toContain(stem("directory"));
    expect(everydayWords(stem("zebra"))).toEqual([]);
  });

  it("find a tool named in API words from a plainly worded task", () => {
    const index = new ToolIndex([
      op("usersGetPresence", "GET", "/users.getPresence", { title: "Gets user presence information" }),
      op("usersInfo", "GET", "/users.info", { title: "Gets information about a user" }),
      op("createFolder", "POST", "/folders", { title: "Create folder" }),
    ]);
    expect(names(index, "is my colleague online")[0]).toBe("usersGetPresence");
    expect(names(index, "make a new directory")[0]).toBe("createFolder");
    expect(names(index, "make a new directory", 10)).not.toContain("usersInfo");
  });

  it("count a word and its expansions as one concept, so many weak synonyms do not beat one real match", () => {
    // "erase" expands to delete and remove; a tool holding both must not outrank the one holding the task's noun.
    const index = new ToolIndex([
      op("deleteRemove", "POST", "/x", { title: "Delete or remove" }),
      op("deleteTrack", "DELETE", "/tracks", { title: "Delete track" }),
    ]);
    expect(names(index, "erase track")[0]).toBe("deleteTrack");
  });
});

describe("results", () => {
  it("carry name, title, a one-line description and the required arguments", () => {
    const index = new ToolIndex([
      op("getRepo", "GET", "/repos/{owner}/{repo}", {
        title: "Get a repository",
        description: "Gets a repository. The parent and source objects are present when the repository is a fork.",
        required: ["pathArgs.owner", "pathArgs.repo"],
      }),
      op("meta", "GET", "/meta", { title: "Get repository meta" }),
    ]);
    const outcome = index.search("get repository", 10);
    expect(outcome.ok && outcome.hits[0]).toEqual({
      name: "getRepo",
      title: "Get a repository",
      description: "Gets a repository.",
      required: ["pathArgs.owner", "pathArgs.repo"],
      score: expect.any(Number),
    });
    expect(outcome.ok && outcome.hits[1]).toEqual({
      name: "meta",
      title: "Get repository meta",
      score: expect.any(Number),
    });
  });

  it("keep a one-line description short: first sentence, white space collapsed, cut at a word", () => {
    expect(oneLine("  Lists\n the   items.  Then more.")).toBe("Lists the items.");
    expect(oneLine("See e.g. the docs for more. Next.")).toBe("See e.g. the docs for more.");
    const long = oneLine(`${"word ".repeat(100)}end.`);
    expect(long.length).toBeLessThanOrEqual(ONE_LINE_MAX);
    expect(long.endsWith("word…")).toBe(true);
    expect(oneLine("")).toBe("");
  });
});

describe("at scale", () => {
  const many: Array<SearchableTool> = [];
  for (let i = 0; i < 1_000; i++) many.push(...resource(`Things${i}`, `Thing${i}`));

  it("answers the same ranking for the same query, run after run and index after index", () => {
    const a = new ToolIndex(many);
    const b = new ToolIndex(many);
    for (const query of ["delete thing 7", "list things", "who changed the thing", "update"]) {
      const first = a.search(query, 20);
      expect(a.search(query, 20)).toEqual(first);
      expect(b.search(query, 20)).toEqual(first);
    }
  });

  it("keeps regex queries bounded over 5,000 tools: a pathological pattern answers or stops, a refused one errs", () => {
    const index = new ToolIndex(many);
    // Linear matching answers; on a slow machine the scan's time budget may stop it first: either way it returns.
    const pathological = index.search("/(a+)+$/", 10);
    expect(pathological.ok ? pathological.hits : pathological.message).toSatisfy(
      (x: unknown) => Array.isArray(x) || String(x).includes("took longer than"),
    );
    expect(index.search("/(a)\\1/", 10).ok).toBe(false);
    expect(names(index, "/^deleteThing99$/")).toEqual(["deleteThing99"]);
  });
});
