import { describe, expect, it } from "vitest";
import { methodIntent, type SearchableTool, stem, ToolIndex, words } from "../src/index.js";
import { names, tool } from "./support/search.js";

// Negations before a verb ask to remove; words built with a prefix or suffix are also found by their base.

const op = (name: string, method: string, path: string, title: string): SearchableTool =>
  tool(name, { method, path, title });

describe("negations", () => {
  it("reads a negated verb as a removal, not as what the verb says", () => {
    const intent = (query: string, negation = true) => methodIntent(words(query).map(stem), undefined, negation);
    expect(intent("stop getting emails about a repository")).toEqual(["DELETE", "POST"]);
    expect(intent("I no longer want updates about this task")).toEqual(["DELETE", "POST"]);
    expect(intent("stop getting emails about a repository", false)).toEqual(["GET"]);
    expect(intent("get the emails")).toEqual(["GET"]);
  });

  it("ranks the removal above the read for 'stop sharing'", () => {
    const tools = [
      op("listAcl", "GET", "/calendars/{id}/acl", "List access rules"),
      op("insertAcl", "POST", "/calendars/{id}/acl", "Share: create an access rule"),
      op("deleteAcl", "DELETE", "/calendars/{id}/acl/{rule}", "Delete an access rule"),
    ];
    const order = (index: ToolIndex) => names(index, "stop sharing my calendar").filter((n) => n !== "insertAcl");
    expect(order(new ToolIndex(tools))).toEqual(["deleteAcl", "listAcl"]);
    expect(order(new ToolIndex(tools, { negation: false }))).toEqual(["listAcl", "deleteAcl"]);
  });
});

describe("prefixes and suffixes", () => {
  const tools = [
    op("sendCampaign", "POST", "/campaigns/{id}/send", "Send a campaign"),
    op("resendCampaign", "POST", "/campaigns/{id}/resend", "Resend a campaign"),
    op("listCampaigns", "GET", "/campaigns", "List campaigns"),
    op("yearlyUsage", "GET", "/usage/yearly", "Usage records, yearly"),
    op("usageTriggers", "GET", "/usage/triggers", "Usage triggers"),
  ];

  it("finds a re- word by its base and 'again'", () => {
    expect(names(new ToolIndex(tools), "the campaign again")[0]).toBe("resendCampaign");
    expect(names(new ToolIndex(tools, { affixes: false }), "the campaign again")[0]).not.toBe("resendCampaign");
  });

  it("finds an -ly word by its base", () => {
    expect(names(new ToolIndex(tools), "usage for this year")[0]).toBe("yearlyUsage");
  });

  it("keeps a word whole when its base is no word of the server", () => {
    // "source" is used by no tool, so "resource" is not read as re- + source.
    const index = new ToolIndex([op("listResources", "GET", "/resources", "List resources")]);
    expect(names(index, "source again")).toEqual([]);
  });
});
