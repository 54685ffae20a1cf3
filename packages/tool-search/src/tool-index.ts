import { Bm25Index, type QueryTerm } from "./bm25-index.js";
import { intentFactor, lastSegment, methodIntent } from "./intent.js";
import { oneLine } from "./one-line.js";
import { rewritePhrases } from "./phrases.js";
import { EVERYDAY_WEIGHT, everydayWords } from "./everyday-words.js";
import { prefixBases } from "./prefixes.js";
import { compileSafeRegex } from "./safe-regex.js";
import { SYNONYM_WEIGHT, synonymsOf } from "./synonyms.js";
import { isStopWord, stem, terms, words } from "./text.js";

/** What the index knows of one tool. */
export interface SearchableTool {
  readonly name: string;
  readonly title?: string | undefined;
  readonly description?: string | undefined;
  /** HTTP method of the upstream operation. */
  readonly method: string;
  /** Path template of the upstream operation (`/repos/{owner}/{repo}`). */
  readonly path: string;
  /** Argument names and their descriptions. */
  readonly arguments: ReadonlyArray<{ readonly name: string; readonly description?: string | undefined }>;
  /** The arguments a call must give, as `part.name` (`pathArgs.owner`), shown in results. */
  readonly required?: ReadonlyArray<string> | undefined;
}

/** One search result, best first. */
export interface ToolHit {
  readonly name: string;
  readonly title?: string;
  /** The description's first sentence, at most ONE_LINE_MAX characters. */
  readonly description?: string;
  /** The arguments a call must give (`pathArgs.owner`); left out when there are none. */
  readonly required?: ReadonlyArray<string>;
  readonly score: number;
}

export type SearchOutcome =
  | { readonly ok: true; readonly hits: ReadonlyArray<ToolHit> }
  | { readonly ok: false; readonly message: string };

/** Per-field boosts (chosen by measurement on bench/tool-search-tasks.json; see docs/decisions.md). */
export const FIELD_BOOSTS = {
  name: 3,
  title: 3,
  description: 1,
  method: 1,
  path: 1.5,
  action: 1.5,
  argNames: 0.5,
  argDescriptions: 0.3,
  affix: 2,
} as const;
type Field = keyof typeof FIELD_BOOSTS;
const FIELDS = Object.keys(FIELD_BOOSTS) as Array<Field>;

/** Tuning knobs, for measurement only (bench/tool-search); the defaults are the measured choice. */
export interface ToolIndexOptions {
  readonly boosts?: Partial<Record<Field, number>>;
  readonly synonymWeight?: number;
  readonly everydayWeight?: number;
  /** REST intent: method verbs indexed with the method, the path's last segment, the method re-ranking. */
  readonly intent?: boolean;
  /** How much each path segment lowers a candidate's score in the intent re-ranking. */
  readonly depthPenalty?: number;
  /** The hand-written thesaurus (synonyms.ts). */
  readonly thesaurus?: boolean;
  /** Everyday words → API words (everyday-words.ts). */
  readonly everyday?: boolean;
  /** Phrasal verbs and set phrases → API words (phrases.ts). */
  readonly phrases?: boolean;
  /** A query opening with a word no tool uses is an order: favour writes (intent.ts ACT). */
  readonly act?: boolean;
  /** A negation before the verb ("stop sharing", "no longer") asks to remove (intent.ts NEGATIONS). */
  readonly negation?: boolean;
  /** Prefixed words (`resend`, `unschedule`) also indexed as their base and a marker (`send again`). */
  readonly affixes?: boolean;
  /** A lexicon's related words of a query word (measurement only, off: bench/tool-search/wordnet.mjs). */
  readonly related?: (word: string) => ReadonlyArray<string>;
  /** The weight of those related words (default 0.2). */
  readonly relatedWeight?: number;
  /** Widen only the query words that neither the server's tools nor the hand-written tables know. */
  readonly relatedOnlyUnknown?: boolean;
}

/** How much of each argument description is indexed. */
const ARG_DESCRIPTION_CHARS = 80;
/** Each path segment divides a re-ranked score by (1 + DEPTH_PENALTY · segments) (chosen on bench/ dev tasks). */
export const DEPTH_PENALTY = 0.1;
/** How many BM25 candidates the intent re-ranking looks at. */
const RERANK_DEPTH = 50;

/** The verbs each HTTP method stands for, indexed with the method so "remove ..." favours DELETE. */
const METHOD_WORDS: Record<string, string> = {
  GET: "get list read",
  HEAD: "get read",
  POST: "create add post",
  PUT: "put replace set update",
  PATCH: "patch update edit",
  DELETE: "delete remove",
};

/** Longest query read (longer ones are cut: relevance does not need more). */
export const MAX_QUERY_LENGTH = 1_000;
/** A regex search stops with an error after this many milliseconds (the engine is linear; this is a guard). */
export const REGEX_BUDGET_MS = 100;

/** A query's weighted terms: its own stems (1), their thesaurus synonyms and their WordNet relatives. */
const queryTerms = (
  own: ReadonlyArray<string>,
  questions: ReadonlyArray<string>,
  synonymWeight: number,
  everydayWeight: number,
): Map<string, QueryTerm> => {
  const weights = new Map<string, QueryTerm>();
  const concepts = new Map<string, number>();
  for (const t of own) if (!concepts.has(t)) concepts.set(t, concepts.size);
  const raise = (term: string, weight: number, concept: number) => {
    if (weight > 0 && (weights.get(term)?.weight ?? 0) < weight) weights.set(term, { weight, concept });
  };
  for (const [t, concept] of concepts) raise(t, 1, concept);
  for (const [t, concept] of concepts) {
    for (const s of synonymsOf(t)) raise(s, synonymWeight, concept);
    for (const s of everydayWords(t)) raise(s, everydayWeight, concept);
  }
  for (const q of questions) {
    const related = everydayWords(q);
    if (related.length === 0) continue;
    const concept = concepts.size;
    concepts.set(q, concept);
    for (const s of related) raise(s, everydayWeight, concept);
  }
  return weights;
};

/**
 * A search index over one server's tools, built once (per compiled server revision) and then only read:
 * BM25+ over name, title, description, method, path and argument names/descriptions (Bm25Index).
 */
export class ToolIndex {
  private readonly index: Bm25Index;
  private readonly tools: ReadonlyArray<SearchableTool>;
  private readonly synonymWeight: number;
  private readonly everydayWeight: number;
  private readonly intent: boolean;
  private readonly depthPenalty: number;
  private readonly phrases: boolean;
  private readonly act: boolean;
  private readonly negation: boolean;
  private readonly related: ((word: string) => ReadonlyArray<string>) | undefined;
  private readonly relatedWeight: number;
  private readonly relatedOnlyUnknown: boolean;

  constructor(tools: ReadonlyArray<SearchableTool>, options: ToolIndexOptions = {}) {
    this.tools = tools;
    this.synonymWeight = options.thesaurus === false ? 0 : (options.synonymWeight ?? SYNONYM_WEIGHT);
    this.everydayWeight = options.everyday === false ? 0 : (options.everydayWeight ?? EVERYDAY_WEIGHT);
    this.intent = options.intent !== false;
    this.depthPenalty = options.depthPenalty ?? DEPTH_PENALTY;
    this.phrases = options.phrases !== false;
    this.act = options.act !== false;
    this.negation = options.negation !== false;
    this.related = options.related;
    this.relatedWeight = options.relatedWeight ?? 0.2;
    this.relatedOnlyUnknown = options.relatedOnlyUnknown ?? false;
    const intent = this.intent;
    const boosts = { ...FIELD_BOOSTS, ...options.boosts };
    const affixed = options.affixes !== false ? prefixBases(tools) : undefined;
    this.index = new Bm25Index(
      tools.map((tool) => {
        const fields: Record<Field, ReadonlyArray<string>> = {
          name: terms(tool.name),
          title: terms(tool.title ?? ""),
          description: terms(tool.description ?? ""),
          method: terms(intent ? `${tool.method} ${METHOD_WORDS[tool.method.toUpperCase()] ?? ""}` : tool.method),
          path: terms(tool.path),
          action: intent ? terms(lastSegment(tool.path)) : [],
          argNames: terms(tool.arguments.map((a) => a.name).join(" ")),
          // Each argument description's opening words only: they say what it is; the rest is build time.
          argDescriptions: terms(
            tool.arguments.map((a) => (a.description ?? "").slice(0, ARG_DESCRIPTION_CHARS)).join(" "),
          ),
          affix: affixed?.(tool) ?? [],
        };
        return FIELDS.map((field) => fields[field]);
      }),
      FIELDS.map((field) => boosts[field]),
    );
  }

  /** Among near-equal matches the shorter path is the main operation (`/repos/{o}/{r}` over `/teams/…/repos/{o}/{r}`). */
  private depthFactor(path: string): number {
    let depth = 0;
    for (let i = 0; i < path.length; i++) if (path.charCodeAt(i) === 47) depth++;
    return 1 / (1 + this.depthPenalty * depth);
  }

  get size(): number {
    return this.tools.length;
  }

  /** The best `limit` tools for `query`, best first. `/pattern/` is a case-insensitive regex over names and titles. */
  search(query: string, limit: number): SearchOutcome {
    if (!(limit >= 1)) return { ok: true, hits: [] };
    const trimmed = query.trim();
    if (trimmed.length >= 2 && trimmed.startsWith("/") && trimmed.endsWith("/"))
      return this.searchRegex(trimmed.slice(1, -1), limit);
    return { ok: true, hits: this.searchText(trimmed.slice(0, MAX_QUERY_LENGTH), limit) };
  }

  private hit(id: number, score: number): ToolHit {
    const tool = this.tools[id] as SearchableTool;
    const description = oneLine(tool.description ?? "");
    return {
      name: tool.name,
      ...(tool.title ? { title: tool.title } : {}),
      ...(description !== "" ? { description } : {}),
      ...(tool.required !== undefined && tool.required.length > 0 ? { required: tool.required } : {}),
      score: Math.round(score * 1000) / 1000,
    };
  }

  private searchText(query: string, limit: number): Array<ToolHit> {
    const queryWords = this.phrases ? rewritePhrases(words(query)) : words(query);
    const own = terms(queryWords.join(" "));
    // Question words are filler for matching but say what is asked ("who" → members, "how many" → count).
    const questions = queryWords.filter(isStopWord).map(stem);
    const weights = queryTerms(own, questions, this.synonymWeight, this.everydayWeight);
    if (weights.size === 0) return [];
    if (this.related !== undefined) this.widen(queryWords, weights);
    if (!this.intent) return this.index.search(weights, limit).map((r) => this.hit(r.doc, r.score));
    // Re-rank the best candidates by how well their method fits the query's verb; equal scores keep order.
    const intent = methodIntent(
      queryWords.map(stem),
      this.act ? (s) => isStopWord(s) || this.index.has(s) : undefined,
      this.negation,
    );
    const tools = this.tools;
    return this.index
      .search(weights, Math.max(limit, RERANK_DEPTH))
      .map((r) => {
        const tool = tools[r.doc] as SearchableTool;
        return { doc: r.doc, score: r.score * intentFactor(intent, tool.method) * this.depthFactor(tool.path) };
      })
      .sort((a, b) => b.score - a.score || a.doc - b.doc)
      .slice(0, limit)
      .map((r) => this.hit(r.doc, r.score));
  }

  /** Adds a lexicon's related words of each query word, in that word's concept. */
  private widen(queryWords: ReadonlyArray<string>, weights: Map<string, QueryTerm>): void {
    const related = this.related;
    if (related === undefined) return;
    for (const word of queryWords) {
      if (isStopWord(word)) continue;
      const own = stem(word);
      const concept = weights.get(own)?.concept;
      if (concept === undefined) continue;
      // A word the server uses, or that the hand-written tables know, is left to them.
      if (this.relatedOnlyUnknown && (this.index.has(own) || synonymsOf(own).size > 0 || everydayWords(own).length > 0))
        continue;
      for (const r of related(word))
        for (const t of terms(r))
          if ((weights.get(t)?.weight ?? 0) < this.relatedWeight)
            weights.set(t, { weight: this.relatedWeight, concept });
    }
  }

  private searchRegex(pattern: string, limit: number): SearchOutcome {
    const regex = compileSafeRegex(pattern);
    if (!regex.ok) return regex;
    const deadline = performance.now() + REGEX_BUDGET_MS;
    const hits: Array<ToolHit> = [];
    const titleOnly: Array<ToolHit> = [];
    for (const [id, tool] of this.tools.entries()) {
      if (performance.now() > deadline)
        return { ok: false, message: `the regular expression took longer than ${REGEX_BUDGET_MS} ms; simplify it` };
      // A match in the name ranks above a match in the title only.
      if (regex.test(tool.name)) hits.push(this.hit(id, 1));
      else if (tool.title && regex.test(tool.title)) titleOnly.push(this.hit(id, 0.5));
      if (hits.length >= limit) break;
    }
    return { ok: true, hits: [...hits, ...titleOnly].slice(0, limit) };
  }
}
