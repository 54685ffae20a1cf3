import { describe, expect, it } from "vitest";
import { ToolIndex } from "../src/index.js";
import { names, tool } from "./support/search.js";

// The lexicon hook (`related`, used by bench/tool-search/wordnet.mjs to measure WordNet): it widens a query
// word with its related words, in the word's own concept, and with `relatedOnlyUnknown` only the words that
// neither the server nor the hand-written tables know.

const tools = [
  tool("listInvoices", { method: "GET", path: "/invoices", title: "List invoices" }),
  tool("listVideos", { method: "GET", path: "/videos", title: "List videos" }),
];
const lexicon = (word: string) => (word === "flicks" ? ["video"] : word === "bills" ? ["video"] : []);

describe("related words", () => {
  it("finds a tool through a word the lexicon relates to a query word", () => {
    expect(names(new ToolIndex(tools), "my flicks", 2)).toEqual([]);
    expect(names(new ToolIndex(tools, { related: lexicon }), "my flicks", 2)[0]).toBe("listVideos");
  });

  it("leaves a word the hand-written tables know to them when only unknown words are widened", () => {
    // "bills" is an everyday word for invoices: the (wrong) lexicon entry is not used.
    const index = new ToolIndex(tools, { related: lexicon, relatedOnlyUnknown: true });
    expect(names(index, "show my bills", 2)[0]).toBe("listInvoices");
    expect(names(new ToolIndex(tools, { related: lexicon, relatedWeight: 1 }), "show my bills", 2)).toContain(
      "listVideos",
    );
  });
});
