import { countTokens as countO200k } from "gpt-tokenizer/encoding/o200k_base";

/**
 * Token counts with the o200k_base tokenizer (`gpt-tokenizer`, ranks shipped in the package).
 *
 * The rule that keeps counting cheap: a token is at least one byte of UTF-8, so a text of at most `limit`
 * bytes has at most `limit` tokens and is never counted to decide whether it fits (its size is estimated
 * from a counted slice of `SAMPLE_CHARS`, exact below that length). A longer text is counted
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

/**
 * A text that fits by its byte length is counted exactly up to this many characters, and beyond them
 * estimated from a counted slice this long: its count then only feeds the token histogram, and counting
 * costs some 40 µs per KB, more than the rest of a call's shaping.
 */
const SAMPLE_CHARS = 256;

export interface TokenMeasure {
  /** The count (exact) or the estimate. */
  readonly tokens: number;
  readonly exact: boolean;
  /** True when the text has at most `limit` tokens. */
  readonly within: boolean;
}

/** Tokens per byte of a counted `SAMPLE_CHARS` slice from the middle of `text`. */
const middleDensity = (text: string): number => {
  const start = Math.max(0, Math.floor(text.length / 2) - SAMPLE_CHARS / 2);
  const slice = text.slice(start, start + SAMPLE_CHARS);
  return countO200k(slice) / Math.max(1, Buffer.byteLength(slice));
};

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
  if (text.length <= SAMPLE_CHARS) {
    const tokens = countO200k(text);
    return { tokens, exact: true, within: tokens <= limit };
  }
  const bytes = Buffer.byteLength(text);
  if (bytes <= limit)
    return { tokens: Math.min(bytes, Math.ceil(middleDensity(text) * bytes)), exact: false, within: true };
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
