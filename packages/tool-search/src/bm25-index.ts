// An inverted index scored with BM25+ per field (k1 1.2, b 0.7, δ 0.5: minisearch's parameters and
// formula, which this replaces for speed) with per-field boosts, the fields summed (as minisearch does),
// and the sum multiplied by the number of query terms a document matched (minisearch's "quality").
//
// The index is immutable: documents and field lengths never change after building, so each posting's
// boosted, summed-over-fields score is computed once at build time. The "quality" factor counts the query's
// concepts a document matched (a word and its synonyms are one concept), not the expanded terms. A search then only adds up
// precomputed numbers from typed arrays: the cost is the length of the query terms' posting lists.

const K1 = 1.2;
const B = 0.7;
const DELTA = 0.5;

/** One document: for each field, its terms (already tokenized and normalized). */
export type FieldTerms = ReadonlyArray<ReadonlyArray<string>>;

interface Postings {
  readonly docs: Int32Array;
  readonly scores: Float64Array;
}

/** A query term's weight and the concept (0-31: the query word it stands for) it counts towards. */
export interface QueryTerm {
  readonly weight: number;
  readonly concept: number;
}

export interface ScoredDoc {
  readonly doc: number;
  readonly score: number;
}

const bitCount = (mask: number): number => {
  let n = mask - ((mask >>> 1) & 0x55555555);
  n = (n & 0x33333333) + ((n >>> 2) & 0x33333333);
  return (((n + (n >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24;
};

export class Bm25Index {
  private readonly postings = new Map<string, Postings>();
  private readonly scores: Float64Array;
  private readonly matched: Uint32Array;
  readonly size: number;

  /** `docs[d][f]` are the terms of field `f` of document `d`; `boosts[f]` weighs field `f`. */
  constructor(docs: ReadonlyArray<FieldTerms>, boosts: ReadonlyArray<number>) {
    this.size = docs.length;
    this.scores = new Float64Array(docs.length);
    this.matched = new Uint32Array(docs.length);
    const fields = boosts.length;
    const averages = boosts.map(
      (_, f) => docs.reduce((sum, doc) => sum + (doc[f]?.length ?? 0), 0) / (docs.length || 1),
    );
    // term → its (document, field, frequency) triples in document order, and in how many documents each
    // field holds it; one pass over the documents with a small per-field count.
    const entries = new Map<
      string,
      { docs: Array<number>; fields: Array<number>; tfs: Array<number>; df: Int32Array }
    >();
    const counts = new Map<string, number>();
    docs.forEach((doc, d) => {
      for (let f = 0; f < fields; f++) {
        counts.clear();
        for (const term of doc[f] ?? []) counts.set(term, (counts.get(term) ?? 0) + 1);
        for (const [term, tf] of counts) {
          let entry = entries.get(term);
          if (entry === undefined) {
            entry = { docs: [], fields: [], tfs: [], df: new Int32Array(fields) };
            entries.set(term, entry);
          }
          entry.docs.push(d);
          entry.fields.push(f);
          entry.tfs.push(tf);
          entry.df[f] = (entry.df[f] as number) + 1;
        }
      }
    });
    const idfs = new Float64Array(fields);
    for (const [term, entry] of entries) {
      for (let f = 0; f < fields; f++) {
        const df = entry.df[f] as number;
        idfs[f] = Math.log(1 + (docs.length - df + 0.5) / (df + 0.5));
      }
      const postingDocs: Array<number> = [];
      const postingScores: Array<number> = [];
      for (let i = 0; i < entry.docs.length; i++) {
        const d = entry.docs[i] as number;
        const f = entry.fields[i] as number;
        const tf = entry.tfs[i] as number;
        const boost = boosts[f] ?? 0;
        if (boost === 0) continue;
        const length = docs[d]?.[f]?.length ?? 0;
        const score =
          (idfs[f] as number) * (DELTA + (tf * (K1 + 1)) / (tf + K1 * (1 - B + (B * length) / (averages[f] || 1))));
        // Triples arrive in document order, so a document's fields are adjacent.
        if (postingDocs[postingDocs.length - 1] === d)
          postingScores[postingScores.length - 1] = (postingScores[postingScores.length - 1] as number) + boost * score;
        else {
          postingDocs.push(d);
          postingScores.push(boost * score);
        }
      }
      if (postingDocs.length === 0) continue;
      this.postings.set(term, { docs: Int32Array.from(postingDocs), scores: Float64Array.from(postingScores) });
    }
  }

  /** True when some document has `term`. */
  has(term: string): boolean {
    return this.postings.has(term);
  }

  /** The `limit` best documents for weighted query terms, best first; equal scores keep document order. */
  search(terms: ReadonlyMap<string, QueryTerm>, limit: number): Array<ScoredDoc> {
    const { scores, matched } = this;
    const touched: Array<number> = [];
    for (const [term, { weight, concept }] of terms) {
      const postings = this.postings.get(term);
      if (postings === undefined) continue;
      const { docs, scores: termScores } = postings;
      const bit = 1 << (concept & 31);
      for (let i = 0; i < docs.length; i++) {
        const d = docs[i] as number;
        if (matched[d] === 0) touched.push(d);
        matched[d] = (matched[d] as number) | bit;
        scores[d] = (scores[d] as number) + weight * (termScores[i] as number);
      }
    }
    // Keep the best `limit` in a small sorted array (limit ≤ 50): linear in the touched documents.
    const best: Array<ScoredDoc> = [];
    for (const d of touched) {
      const score = (scores[d] as number) * bitCount(matched[d] as number);
      scores[d] = 0;
      matched[d] = 0;
      if (best.length === limit && score <= (best[best.length - 1] as ScoredDoc).score) continue;
      let at = best.length;
      while (at > 0) {
        const before = best[at - 1] as ScoredDoc;
        if (before.score > score || (before.score === score && before.doc < d)) break;
        at--;
      }
      best.splice(at, 0, { doc: d, score });
      if (best.length > limit) best.pop();
    }
    return best;
  }
}
