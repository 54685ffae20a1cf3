// Tool names from operations (docs/api-rules.md §15, §6): camelCase, 1–20 characters, deterministic (the same
// document gives the same names), unique within the provider, and as readable as the length allows.

const MAX_NAME = 20;
const STOP_WORDS = new Set(["a", "an", "the", "for", "of", "by", "to", "in", "on", "with", "and", "from", "at"]);

/** The words of an identifier or path: split at non-alphanumerics and at camelCase / digit boundaries. */
export const wordsOf = (text: string): Array<string> =>
  text
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .replace(/([A-Z]+)([A-Z][a-z])/g, "$1 $2")
    .replace(/([a-zA-Z])([0-9])/g, "$1 $2")
    .split(/[^A-Za-z0-9]+/)
    .filter((w) => w !== "")
    .map((w) => w.toLowerCase());

const camel = (words: ReadonlyArray<string>): string =>
  words.map((w, i) => (i === 0 ? w : w.charAt(0).toUpperCase() + w.slice(1))).join("");

/** The words naming an operation without an operationId: its method, then its path's literal segments. */
const methodPathWords = (method: string, path: string): Array<string> => {
  const segments = path.split("/").filter((s) => s !== "");
  const words = segments.flatMap((segment) =>
    /^\{[^{}]*\}$/.test(segment) ? [] : wordsOf(segment.replace(/\{[^{}]*\}/g, " ")),
  );
  const last = segments[segments.length - 1];
  // `GET /pets/{id}` reads as "get pets by id": the trailing placeholder says which one.
  if (last !== undefined && /^\{[^{}]*\}$/.test(last)) words.push("by", ...wordsOf(last.slice(1, -1)));
  return [method.toLowerCase(), ...words];
};

/**
 * Shortens words to a camelCase name of at most `max` characters: stop words go first (never the first
 * word), then the longest word is cut (to no fewer than 3 letters) until it fits; as a last resort the
 * middle words go and the result is cut.
 */
const fit = (input: ReadonlyArray<string>, max: number): string => {
  let words = [...input];
  if (camel(words).length <= max) return camel(words);
  const kept = words.filter((w, i) => i === 0 || !STOP_WORDS.has(w));
  if (kept.length > 0) words = kept;
  while (camel(words).length > max) {
    let longest = -1;
    for (const [i, w] of words.entries())
      if (w.length > 3 && (longest < 0 || w.length >= words[longest]!.length)) longest = i;
    if (longest < 0) break;
    const word = words[longest]!;
    const excess = camel(words).length - max;
    words[longest] = word.slice(0, Math.max(3, word.length - excess));
  }
  while (camel(words).length > max && words.length > 2) words.splice(words.length - 2, 1);
  return camel(words).slice(0, max);
};

/** A readable camelCase base name for an operation (before uniqueness). */
export const baseToolName = (operationId: string, method: string, path: string): string => {
  let words = wordsOf(operationId);
  if (words.length === 0) words = methodPathWords(method, path);
  // A name must start with a lower-case letter: `2fa/enable` → `op2faEnable`.
  if (!/^[a-z]/.test(words[0] ?? "")) words.unshift("op");
  return fit(words, MAX_NAME);
};

/**
 * Gives each base name a unique final name, in order: the first keeps its base, later ones take the
 * smallest free numeric suffix (the base cut so the whole stays within 20 characters). `taken` holds names
 * already used in the provider by tools this import does not own.
 */
export const uniqueNames = (bases: ReadonlyArray<string>, taken: ReadonlySet<string>): Array<string> => {
  const used = new Set(taken);
  return bases.map((base) => {
    let name = base;
    for (let n = 2; used.has(name); n++) {
      const suffix = String(n);
      name = base.slice(0, MAX_NAME - suffix.length) + suffix;
    }
    used.add(name);
    return name;
  });
};
