import { countTokens, measureTokens } from "../tokens/count-tokens.js";
import { narrowingAdvice } from "./fit-to-tokens.js";
import { pagingHintsOf } from "./paging-hints.js";

/** A text answer (not JSON) cut to a token budget. */
export interface TextFitOutcome {
  readonly text: string;
  readonly tokens: { readonly before: number; readonly after: number };
  /** The note for the model when a cut was made; undefined otherwise. */
  readonly cut: string | undefined;
}

/**
 * A text that is not JSON (or not whole JSON) cut to `limit` o200k_base tokens: its longest prefix that fits,
 * ended at a line break when one is near, with a note saying so and which query arguments narrow the request.
 */
export const fitTextToTokens = (text: string, limit: number, options: { readonly queryArgsSchema?: unknown } = {}) => {
  const first = measureTokens(text, limit);
  if (first.within) return { text, tokens: { before: first.tokens, after: first.tokens }, cut: undefined };
  // Aim under the limit at the text's density, then shrink until the count proves it fits.
  let end = Math.floor((text.length * limit * 0.95) / Math.max(first.tokens, 1));
  let tokens = countTokens(text.slice(0, end));
  for (let round = 0; tokens > limit && round < 20; round++) {
    end = Math.floor((end * limit * 0.95) / tokens);
    tokens = countTokens(text.slice(0, end));
  }
  const lineEnd = text.lastIndexOf("\n", end);
  if (lineEnd > end * 0.9) end = lineEnd;
  const kept = text.slice(0, end);
  const after = countTokens(kept);
  const note = `This answer was cut to fit the server's limit of ${limit} tokens (it had about ${first.tokens}): the first ${kept.length} of ${text.length} characters are shown.${narrowingAdvice(pagingHintsOf(options.queryArgsSchema))}`;
  return { text: kept, tokens: { before: first.tokens, after }, cut: note } satisfies TextFitOutcome;
};
