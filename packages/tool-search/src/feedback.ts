// Pseudo-relevance feedback (RM3's idea, over one server's tools): the words the first pass's best tools
// share in their name, title and path are the server's own words for what the query asks, so a second pass
// adds them to the query with a small weight. This reaches tools whose vocabulary the query does not use
// ("tag as a bug" → `labels`) when the first pass already found one of their neighbours.

/** How feedback widens a query: from the best `docs` tools, the `terms` best words, each at `weight`. */
export interface FeedbackOptions {
  readonly docs: number;
  readonly terms: number;
  readonly weight: number;
  /** Count a match of a feedback word as a matched query concept of its own (else it only adds score). */
  readonly ownConcept?: boolean;
}

/**
 * The feedback words for a first pass's best documents (best first): each word scores the sum, over those
 * documents, of its share of the document's words times the document's share of the scores, times its idf.
 */
export const feedbackWords = (
  best: ReadonlyArray<{ readonly doc: number; readonly score: number }>,
  docWords: (doc: number) => ReadonlyArray<string>,
  idf: (word: string) => number,
  skip: (word: string) => boolean,
  count: number,
): Array<string> => {
  const total = best.reduce((sum, b) => sum + b.score, 0);
  if (!(total > 0)) return [];
  const weights = new Map<string, number>();
  for (const { doc, score } of best) {
    const words = docWords(doc);
    if (words.length === 0) continue;
    const share = score / total / words.length;
    for (const w of words) if (!skip(w)) weights.set(w, (weights.get(w) ?? 0) + share);
  }
  return [...weights]
    .map(([w, p]) => [w, p * idf(w)] as const)
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .slice(0, count)
    .map(([w]) => w);
};
