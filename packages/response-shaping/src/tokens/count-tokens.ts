import { createRequire } from "node:module";

// The o200k_base tables take ~20 MiB of heap (56 MiB of RSS) and make every full collection of the process
// some 35 times longer (7 → 245 ms, measured): loaded on the first exact count only, which an answer that
// fits by its byte length never needs (docs/performance.md, "The cost of one tools/call").
type O200k = typeof import("gpt-tokenizer/encoding/o200k_base");
let o200k: O200k | undefined;
const countO200k = (text: string): number => {
  o200k ??= createRequire(import.meta.url)("gpt-tokenizer/encoding/o200k_base") as O200k;
  return o200k.countTokens(text);
};

/**
 * Token counts with the o200k_base tokenizer (`gpt-tokenizer`, ranks shipped in the package).
 *
 * The rule that keeps counting cheap: a token is at least one byte of UTF-8, so a text of at most `limit`
 * bytes has at most `limit` tokens and is never counted to decide whether it fits (its size is estimated
 * without the tokenizer, `estimateTokens`). A longer text is counted
 * exactly up to a prefix long enough to prove it does not fit (4, then 8, characters per token of the
 * limit: `PREFIX_CHARS_PER_TOKEN`); beyond that prefix its count is extrapolated and said to be an estimate.
 * A text whose three counted 1 KB slices put it over 1.5 times the limit even at the least dense one is
 * declared over on that estimate alone (`OBVIOUSLY_OVER`).
 */
export const countTokens = (text: string): number => countO200k(text);

/**
 * The prefixes counted, in characters per token of the limit, before a long text is counted whole: JSON
 * runs 2.5 to 4 characters a token, so the first usually proves a text over the limit.
 */
export const PREFIX_CHARS_PER_TOKEN: ReadonlyArray<number> = [4, 8];

/** Texts over the limit in bytes up to this many characters are counted exactly. */
const EXACT_BELOW_CHARS = 2048;

/** Characters of a text that `estimateTokens` reads (a slice from the middle of a longer one). */
const SAMPLE_CHARS = 1024;

// Character classes for the estimate: 0 space, 1 letter, 2 digit, 3 punctuation (ASCII); other characters
// are letters, except ideographs and kana (4), which o200k_base takes about two to a token.
const CLASS = new Uint8Array(128).fill(3);
for (let c = 0; c < 128; c++) {
  if ((c >= 65 && c <= 90) || (c >= 97 && c <= 122)) CLASS[c] = 1;
  else if (c >= 48 && c <= 57) CLASS[c] = 2;
  else if (c === 32 || (c >= 9 && c <= 13)) CLASS[c] = 0;
}
const classOf = (code: number): number => (code < 128 ? (CLASS[code] ?? 3) : code >= 0x2e80 && code <= 0x9fff ? 4 : 1);

/** Token-like runs of `text`: o200k_base's pre-tokenization, roughly (a word with its leading space, ≤ 3 digits). */
const runsOf = (text: string): number => {
  let runs = 0;
  let previous = -1;
  let length = 0;
  for (let i = 0; i < text.length; i++) {
    const kind = classOf(text.charCodeAt(i));
    if (kind !== previous) {
      // A space joins the word after it (" quick" is one token).
      if (!(previous === 0 && kind === 1)) runs++;
      previous = kind;
      length = 1;
      continue;
    }
    length++;
    if (
      (kind === 2 && length > 3) ||
      (kind === 1 && length > 8) ||
      (kind === 3 && length > 3) ||
      (kind === 4 && length > 2)
    ) {
      runs++;
      length = 1;
    }
  }
  return runs;
};

/**
 * The o200k_base size of `text` estimated without the tokenizer (within ~20% on JSON, measured), at some
 * 7 µs per KB, from a `SAMPLE_CHARS` slice of a longer text. What a fitting answer's count is: it only feeds
 * the token histogram.
 */
export const estimateTokens = (text: string): number => {
  if (text.length <= SAMPLE_CHARS) return runsOf(text);
  const start = Math.floor(text.length / 2) - SAMPLE_CHARS / 2;
  return Math.ceil((runsOf(text.slice(start, start + SAMPLE_CHARS)) * text.length) / SAMPLE_CHARS);
};

export interface TokenMeasure {
  /** The count (exact) or the estimate. */
  readonly tokens: number;
  readonly exact: boolean;
  /** True when the text has at most `limit` tokens. */
  readonly within: boolean;
}

/** Tokens per byte of three counted slices of `text` (start, middle, end): the least, and their mean. */
const sampledDensity = (text: string): { readonly least: number; readonly mean: number } => {
  const size = EXACT_BELOW_CHARS / 2;
  const starts = [0, Math.floor(text.length / 2) - size / 2, text.length - size].map((s) => Math.max(0, s));
  const densities = starts.map((start) => {
    const slice = text.slice(start, start + size);
    const bytes = Buffer.byteLength(slice);
    return bytes === 0 ? 0 : countO200k(slice) / bytes;
  });
  return { least: Math.min(...densities), mean: densities.reduce((a, b) => a + b, 0) / densities.length };
};

/**
 * A text whose sampled estimate, at its least dense slice, is over `OBVIOUSLY_OVER` times the limit is
 * declared over without an exact count (the cut that follows is counted exactly).
 */
export const OBVIOUSLY_OVER = 1.5;

/**
 * Whether `text` fits `limit` tokens, and its size in tokens: exact where it was counted, else estimated
 * from a counted sample (texts that fit by their byte length) or from the counted prefix (texts over it).
 */
export const measureTokens = (text: string, limit: number): TokenMeasure => {
  const bytes = Buffer.byteLength(text);
  if (bytes <= limit) return { tokens: Math.min(bytes, estimateTokens(text)), exact: false, within: true };
  if (text.length <= EXACT_BELOW_CHARS) {
    const tokens = countO200k(text);
    return { tokens, exact: true, within: tokens <= limit };
  }
  const density = sampledDensity(text);
  if (density.least * bytes > OBVIOUSLY_OVER * limit)
    return { tokens: Math.ceil(density.mean * bytes), exact: false, within: false };
  for (const perToken of PREFIX_CHARS_PER_TOKEN) {
    const prefixChars = limit * perToken;
    if (text.length <= prefixChars) break;
    const prefixTokens = countO200k(text.slice(0, prefixChars));
    if (prefixTokens > limit)
      return { tokens: Math.ceil((prefixTokens / prefixChars) * text.length), exact: false, within: false };
  }
  // A dense prefix and a long text: count all of it.
  const tokens = countO200k(text);
  return { tokens, exact: true, within: tokens <= limit };
};

/** Texts up to this long are counted whole by `boundedTokenCount` (about 10 ms); longer ones are estimated. */
export const EXACT_COUNT_MAX_CHARS = 64 * 1024;

/** How many 1 KB slices, spread evenly over a long text, `boundedTokenCount` counts. */
const ESTIMATE_SLICES = 16;

/**
 * A text's tokens at a bounded cost: counted whole up to `EXACT_COUNT_MAX_CHARS`, else its byte length
 * times the density of `ESTIMATE_SLICES` counted slices (within a few percent on JSON). Counting a 1 MB text
 * whole takes over 100 ms of the caller's thread, which a request that anyone may send must not take.
 */
export const boundedTokenCount = (text: string): { readonly tokens: number; readonly exact: boolean } => {
  if (text.length <= EXACT_COUNT_MAX_CHARS) return { tokens: countO200k(text), exact: true };
  const size = EXACT_BELOW_CHARS / 2;
  const step = (text.length - size) / (ESTIMATE_SLICES - 1);
  let tokens = 0;
  let bytes = 0;
  for (let i = 0; i < ESTIMATE_SLICES; i++) {
    const slice = text.slice(Math.floor(i * step), Math.floor(i * step) + size);
    tokens += countO200k(slice);
    bytes += Buffer.byteLength(slice);
  }
  return { tokens: Math.ceil((tokens / bytes) * Buffer.byteLength(text)), exact: false };
};
