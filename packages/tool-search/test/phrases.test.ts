import { describe, expect, it } from "vitest";
import { ACT, methodIntent, rewritePhrases, type SearchableTool, stem, ToolIndex, words } from "../src/index.js";
import { names, tool } from "./support/search.js";

// Phrasal verbs read as the API words they mean, and an order in everyday words read as a write.

const op = (name: string, method: string, path: string, title: string): SearchableTool =>
  tool(name, { method, path, title });

const rewrite = (query: string) => rewritePhrases(words(query)).join(" ");

describe("phrases", () => {
  it("replace a phrase by its API words, in its place, on stems", () => {
    expect(rewrite("get rid of an old file")).toBe("delete remove an old file");
    expect(rewrite("who signed up for the webinar")).toBe(
      "who add subscribe register registrants member for the webinar",
    );
    expect(rewrite("list the files")).toBe("list the files");
  });

  it("find a phrasal verb's particle a few words after its verb, and no further", () => {
    expect(rewrite("hand this ticket to Maria")).toBe("assign transfer this ticket maria");
    expect(rewrite("throw this email away")).toBe("delete trash this email");
    expect(rewrite("throw the old draft in the end away")).toBe("throw the old draft in the end away");
  });

  it("turn a read-sounding phrase into the write it means", () => {
    const tools = [
      op("getFile", "GET", "/files/{id}", "Get a file"),
      op("deleteFile", "DELETE", "/files/{id}", "Delete a file"),
      op("listFiles", "GET", "/files", "List files"),
    ];
    expect(names(new ToolIndex(tools), "get rid of a file")[0]).toBe("deleteFile");
    expect(names(new ToolIndex(tools, { phrases: false }), "get rid of a file")[0]).not.toBe("deleteFile");
  });
});

describe("an order in everyday words", () => {
  it("reads as a write when its first word is one no tool uses", () => {
    const known = new Set(["reminder", "add", "list"].map(stem));
    const intent = (query: string) => methodIntent(words(query).map(stem), (s) => known.has(s));
    expect(intent("nudge me tomorrow")).toBe(ACT);
    expect(intent("reminder for tomorrow")).toBeUndefined();
    expect(intent("list my reminders")).toEqual(["GET"]);
  });

  it("ranks the write above the read of the same resource", () => {
    const tools = [
      // Equal text: without the order's intent they tie, and the first listed comes first.
      op("remindersInfo", "GET", "/reminders.info", "Reminder"),
      op("remindersAdd", "POST", "/reminders.add", "Reminder"),
    ];
    expect(names(new ToolIndex(tools), "nudge me with a reminder at nine")[0]).toBe("remindersAdd");
    expect(names(new ToolIndex(tools, { act: false }), "nudge me with a reminder at nine")[0]).toBe("remindersInfo");
  });
});
