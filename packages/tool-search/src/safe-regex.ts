import { RE2JS } from "re2js";

// The one place a user-written regular expression is compiled: RE2's linear-time engine (no
// backtracking, so no pattern can make matching take exponential time), with a bounded pattern length.

/** Longest pattern accepted. */
export const MAX_PATTERN_LENGTH = 200;

export type SafeRegex =
  | { readonly ok: true; readonly test: (text: string) => boolean }
  | { readonly ok: false; readonly message: string };

/** Compiles `pattern` case-insensitively with a linear-time engine, or says why it cannot. */
export const compileSafeRegex = (pattern: string): SafeRegex => {
  if (pattern.length > MAX_PATTERN_LENGTH)
    return { ok: false, message: `the regular expression is longer than ${MAX_PATTERN_LENGTH} characters` };
  try {
    const re = RE2JS.compile(pattern, RE2JS.CASE_INSENSITIVE);
    return { ok: true, test: (text) => re.matcher(text).find() };
  } catch (error) {
    return {
      ok: false,
      message: `invalid regular expression: ${error instanceof Error ? error.message : String(error)}`,
    };
  }
};
