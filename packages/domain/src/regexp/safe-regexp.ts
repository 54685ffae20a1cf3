import { RE2JS } from "re2js";

// Regular expressions written by tenants (JSON Schema `pattern` / `patternProperties`, search queries) run
// on caller input. V8's backtracking engine can take exponential time on them (`^(a+)+$` against 31 `a`
// and a `!` blocks the event loop for seconds), so every such regex runs on RE2 (re2js, a pure-JS port:
// no native addon, no WebAssembly): matching time is linear in the input and in the compiled program's
// size. Both are bounded here: a pattern compiles to at most MAX_REGEXP_PROGRAM instructions, and the
// matching work of one test — or of one budget scope (withRegExpBudget) — is at most REGEXP_WORK_BUDGET.
//
// Accepted syntax is ECMAScript's with the `u` flag (what JSON Schema specifies) minus what RE2 cannot run:
// backreferences and lookaround. Known differences in meaning that remain: `\s` is ASCII white space only,
// `.` stops only at `\n`, and case folding is Unicode simple folding.

/** Most RE2 instructions one pattern may compile to (`^[a-z0-9-]+$` is 6, `(?:[a-z]{1,10}){1,100}` 2,003). */
export const MAX_REGEXP_PROGRAM = 1_000;

/** Work units charged per input character on top of the program size (the engine's per-character cost). */
const PER_CHARACTER = 32;

/**
 * Most matching work one test, or one withRegExpBudget scope, may do, in units of (program size + 32) ×
 * input characters: about 110,000 characters against a simple pattern, 4,000 against the largest; the worst
 * case measured on re2js is ~160 ms on a 2-core machine at load 16 (docs/security.md).
 */
export const REGEXP_WORK_BUDGET = 2 ** 22;

/** A tenant-written pattern the service will not run (the message says why, never echoes caller input). */
export class SafeRegExpRefused extends Error {
  constructor(message: string) {
    super(message);
    this.name = "SafeRegExpRefused";
  }
}

/** Matching would exceed the work budget: the input is too long for the pattern. */
export class RegExpBudgetExceeded extends Error {
  constructor() {
    super(`the input is too long to check against this pattern (work limit ${REGEXP_WORK_BUDGET})`);
    this.name = "RegExpBudgetExceeded";
  }
}

/** A compiled tenant-written regular expression that matches in bounded, linear time. */
export interface SafeRegExp {
  /** The pattern as written (ECMAScript syntax). */
  readonly source: string;
  /** The size of the compiled RE2 program (the per-character cost of a test). */
  readonly programSize: number;
  /** True when the pattern matches somewhere in `input` (like RegExp.prototype.test, without lastIndex). */
  readonly test: (input: string) => boolean;
  /** `/source/flags`, like a RegExp's (ajv keys its compiled patterns by it). */
  readonly toString: () => string;
}

/** Flags a SafeRegExp accepts: `u` (always on in effect), `i`, `m`, `s`. */
const FLAGS: Readonly<Record<string, number>> = {
  u: 0,
  i: RE2JS.CASE_INSENSITIVE,
  m: RE2JS.MULTILINE,
  s: RE2JS.DOTALL,
};

/** The construct of a (syntactically valid) ECMAScript pattern that RE2 cannot run, if any. */
const unsupportedConstruct = (pattern: string): "a backreference" | "a lookahead or lookbehind" | undefined => {
  let inClass = false;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === "\\") {
      const next = pattern[i + 1] ?? "";
      // With the u flag `\1`…`\9` and `\k` are always backreferences (or syntax errors, refused earlier).
      if (!inClass && (next === "k" || (next >= "1" && next <= "9"))) return "a backreference";
      i++;
    } else if (inClass) inClass = c !== "]";
    else if (c === "[") inClass = true;
    else if (c === "(" && /^\?<?[=!]/.test(pattern.slice(i + 1, i + 4))) return "a lookahead or lookbehind";
  }
  return undefined;
};

let remaining: number | undefined;

const charge = (units: number): void => {
  if (remaining === undefined) {
    if (units > REGEXP_WORK_BUDGET) throw new RegExpBudgetExceeded();
    return;
  }
  if (units > remaining) throw new RegExpBudgetExceeded();
  remaining -= units;
};

/**
 * Compiles a tenant-written ECMAScript pattern with `flags` (a subset of "uims") for linear-time
 * matching; throws SafeRegExpRefused when the pattern is malformed, uses backreferences or lookaround, or
 * is larger than MAX_REGEXP_PROGRAM instructions.
 */
export const compileSafeRegExp = (pattern: string, flags = "u"): SafeRegExp => {
  let re2Flags = 0;
  for (const flag of flags) {
    const bit = FLAGS[flag];
    if (bit === undefined) throw new SafeRegExpRefused(`the flag '${flag}' is not supported`);
    re2Flags |= bit;
  }
  try {
    // Only to check the syntax against ECMAScript's (what JSON Schema specifies); V8 compiles lazily and
    // this expression never runs.
    new RegExp(pattern, "u");
  } catch (error) {
    throw new SafeRegExpRefused(`is not a valid regular expression: ${(error as Error).message}`);
  }
  const unsupported = unsupportedConstruct(pattern);
  if (unsupported !== undefined)
    throw new SafeRegExpRefused(`uses ${unsupported}, which the service's linear-time regex engine cannot run`);
  let compiled: RE2JS;
  try {
    compiled = RE2JS.compile(RE2JS.translateRegExp(pattern), re2Flags);
  } catch (error) {
    throw new SafeRegExpRefused(
      `cannot be run by the service's linear-time regex engine (RE2): ${(error as Error).message}`,
    );
  }
  const programSize = compiled.re2().prog.inst.length;
  if (programSize > MAX_REGEXP_PROGRAM)
    throw new SafeRegExpRefused(
      `is too complex: it compiles to ${programSize} instructions, more than ${MAX_REGEXP_PROGRAM}; use smaller repetition counts`,
    );
  return {
    source: pattern,
    programSize,
    test: (input) => {
      charge((programSize + PER_CHARACTER) * input.length);
      return compiled.test(input);
    },
    toString: () => `/${pattern}/${flags}`,
  };
};

/** Why `pattern` cannot be used as a tenant-written regex, or undefined when it can. */
export const safeRegExpProblem = (pattern: string): string | undefined => {
  try {
    compileSafeRegExp(pattern);
    return undefined;
  } catch (error) {
    if (error instanceof SafeRegExpRefused) return error.message;
    throw error;
  }
};

/**
 * Runs `work` with a shared matching budget of `units` for every SafeRegExp test inside it (synchronous
 * work only); a test that would exceed it throws RegExpBudgetExceeded.
 */
export const withRegExpBudget = <A>(units: number, work: () => A): A => {
  const outer = remaining;
  const start = Math.min(units, outer ?? units);
  remaining = start;
  try {
    return work();
  } finally {
    // What the inner scope spent is spent from the outer one too.
    remaining = outer === undefined ? undefined : outer - (start - (remaining ?? start));
  }
};

/** ajv's `code.regExp` option: every `pattern` and `patternProperties` regex compiled as a SafeRegExp. */
export const safeRegExpEngine: ((pattern: string, flags: string) => SafeRegExp) & { code: string } = Object.assign(
  (pattern: string, flags: string) => compileSafeRegExp(pattern, flags),
  {
    code: "safeRegExpEngine",
  },
);
