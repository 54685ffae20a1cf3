import type { SearchableTool } from "./tool-index.js";
import { stem, words } from "./text.js";

// English words built with a prefix or suffix the stemmer keeps: `resend`, `redeliver`, `reopen` do their
// base again; `unschedule`, `unarchive`, `uninstall` undo it; `yearly`, `monthly` are of their base. A query
// says "send it again", "use this year": the built word of the tool's name, title or path does not match its
// base, so each such word is also indexed as its base (and, for a prefix, a marker word: `again`, `undo`).
// A word is read as prefixed only when its base, at least BASE_MIN letters, is a word other tools of the same
// server use (`resource` → `source` is not taken unless some tool says "source"), which keeps `read`, `unit`,
// `report` whole in most servers; a suffixed one when its base has at least SUFFIX_BASE_MIN letters (`apply`,
// `reply`, `early` stay whole).

const BASE_MIN = 3;
const SUFFIX_BASE_MIN = 4;
const SUFFIXES: ReadonlyArray<string> = ["ly"];
const PREFIXES: ReadonlyArray<readonly [string, string]> = [
  ["re", "again"],
  ["un", "undo"],
];

/** A function giving, per tool, the bases (and markers) of the built words of its name, title and path. */
export const prefixBases = (tools: ReadonlyArray<SearchableTool>): ((tool: SearchableTool) => Array<string>) => {
  const head = (tool: SearchableTool) => words(`${tool.name} ${tool.title ?? ""} ${tool.path}`);
  const vocabulary = new Set<string>();
  for (const tool of tools) for (const w of head(tool)) vocabulary.add(stem(w));
  return (tool) => {
    const out: Array<string> = [];
    for (const w of head(tool))
      for (const [prefix, marker] of PREFIXES) {
        if (!w.startsWith(prefix) || w.length - prefix.length < BASE_MIN) continue;
        const base = stem(w.slice(prefix.length));
        if (vocabulary.has(base) && base !== stem(w)) out.push(base, marker);
      }
    for (const w of head(tool))
      for (const suffix of SUFFIXES) {
        if (!w.endsWith(suffix) || w.length - suffix.length < SUFFIX_BASE_MIN) continue;
        const base = stem(w.slice(0, -suffix.length));
        if (base !== stem(w)) out.push(base);
      }
    return out;
  };
};
