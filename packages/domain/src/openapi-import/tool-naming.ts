import { STOP_WORDS, TOOL_NAME_ABBREVIATIONS, VERBS } from "./tool-name-words.js";

// Tool names from operations (docs/api-rules.md §15, §15a, §6; docs/decisions.md): camelCase, 1–20
// characters, deterministic (the same document gives the same names), unique within the provider, and
// readable: a verb and its object, made only of whole words of the operation or standard abbreviations
// (TOOL_NAME_ABBREVIATIONS), never a word cut at an arbitrary letter.

export { TOOL_NAME_ABBREVIATIONS } from "./tool-name-words.js";

const MAX_NAME = 20;

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
  const segments = path
    .split(/[?#]/)[0]!
    .split("/")
    .filter((s) => s !== "");
  const words = segments.flatMap((segment) =>
    /^\{[^{}]*\}$/.test(segment) ? [] : wordsOf(segment.replace(/\{[^{}]*\}/g, " ")),
  );
  const last = segments[segments.length - 1];
  // `GET /pets/{id}` reads as "get pets by id": the trailing placeholder says which one.
  if (last !== undefined && /^\{[^{}]*\}$/.test(last)) words.push("by", ...wordsOf(last.slice(1, -1)));
  return [method.toLowerCase(), ...words];
};

/** A word without a plural `s`, to compare words. */
const stem = (word: string) => (word.length > 3 && word.endsWith("s") ? word.slice(0, -1) : word);

/**
 * An operationId as a verb and its object, plus the words of its prefix (a tag, a resource path) that a
 * name may drop first. `repos/create-issue-comment` → create issue comment (prefix: repos);
 * `compute.instances.list` → list instances (prefix: compute); `Pets_ListByOwner` → list by owner (prefix: pets).
 */
const operationWords = (operationId: string): { words: Array<string>; prefix: Array<string> } => {
  const segments = operationId.split(/[/.:]|_(?=[A-Z])|__/).filter((s) => wordsOf(s).length > 0);
  const last = wordsOf(segments.at(-1) ?? "");
  const before = segments.slice(0, -1).flatMap(wordsOf);
  if (last.length === 0) return { words: [], prefix: [] };
  // A last segment that is a verb alone acts on the segment before it: `instances.list` → list instances.
  if (last.length === 1 && before.length > 0) {
    const object = segments.length > 1 ? wordsOf(segments.at(-2)!) : [];
    return { words: [...last, ...object], prefix: before.slice(0, before.length - object.length) };
  }
  // A verb at the end (`userGet`) moves to the front.
  if (!VERBS.has(last[0]!) && VERBS.has(last.at(-1)!)) last.unshift(last.pop()!);
  // A prefix whose words the rest repeats adds nothing (`issues/list-issues`); others are kept if they fit.
  const rest = new Set(last.map(stem));
  return { words: last, prefix: before.filter((w) => !rest.has(stem(w))) };
};

/** The verb, then the prefix (a tag) after it, then the rest: `create` + `reaction` + `for issue comment`. */
const withPrefix = (words: ReadonlyArray<string>, prefix: ReadonlyArray<string>): Array<string> =>
  prefix.length === 0
    ? [...words]
    : VERBS.has(words[0]!)
      ? [words[0]!, ...prefix, ...words.slice(1)]
      : [...prefix, ...words];

/** Words that start the scope of a name (`list runners for repo`: the runners are the object). */
const SCOPE_WORDS = new Set(["for", "in", "of", "on", "by", "from", "with", "at"]);

/**
 * The name of `words` within `max` characters, changing as little as it can, in this order: stop words
 * go; a word repeated (as its plural or singular) goes; long words take their standard abbreviation; the
 * scope (the words after `for`, `in`, `by`…) goes; the prefix words (a tag) go; then the words after the
 * verb, nearest to it first (they name the parents of the object: `get subscription item usage record
 * summaries` keeps `get … record summaries`), until it fits. Words are whole or listed abbreviations; only a
 * single word longer than `max` is ever cut.
 */
export const fitName = (input: ReadonlyArray<string>, prefix: ReadonlyArray<string>, max: number): string => {
  const all = withPrefix(input, prefix);
  const boundary = all.findIndex((w, i) => i > 0 && SCOPE_WORDS.has(w));
  type Word = { text: string; kind: "main" | "scope" | "prefix" };
  const prefixAt = VERBS.has(input[0] ?? "") ? 1 : 0;
  let words: Array<Word> = all.map((text, i) => ({
    text,
    kind: i >= prefixAt && i < prefixAt + prefix.length ? "prefix" : boundary > 0 && i > boundary ? "scope" : "main",
  }));
  const name = () => camel(words.map((w) => w.text));
  const fits = () => name().length <= max;
  if (fits()) return name();
  words = words.filter((w, i) => i === 0 || i === words.length - 1 || !STOP_WORDS.has(w.text));
  if (fits()) return name();
  const seen = new Set<string>();
  words = words.filter((w) => {
    const known = seen.has(stem(w.text));
    seen.add(stem(w.text));
    return !known;
  });
  if (fits()) return name();
  // Abbreviate, longest word first, only as far as needed.
  const order = [...words].sort((a, b) => b.text.length - a.text.length);
  for (const word of order) {
    const short = TOOL_NAME_ABBREVIATIONS[word.text];
    if (short === undefined) continue;
    word.text = short;
    if (fits()) return name();
  }
  for (const kind of ["scope", "prefix"] as const) {
    while (!fits() && words.some((w) => w.kind === kind) && words.length > 1)
      words.splice(
        words.findIndex((w) => w.kind === kind),
        1,
      );
    if (fits()) return name();
  }
  // Then the words after the verb nearest to it, keeping the first and the last word.
  while (!fits() && words.length > 2) words.splice(1, 1);
  if (fits()) return name();
  // Two words still too long: the object alone, else the verb cut (a single word longer than `max`).
  const object = words.at(-1)!.text;
  if (object.length <= max && /^[a-z]/.test(object)) return object;
  return name().slice(0, Math.min(max, words[0]!.text.length));
};

/** The words and droppable prefix naming an operation. */
const nameWords = (operationId: string, method: string, path: string) => {
  let { words, prefix } = operationWords(operationId);
  if (words.length === 0) {
    words = methodPathWords(method, path);
    prefix = [];
  }
  // A name must start with a lower-case letter: `2fa/enable` → `op2faEnable`.
  if (!/^[a-z]/.test(withPrefix(words, prefix)[0] ?? "")) words = ["op", ...words];
  return { words, prefix };
};

/** A readable camelCase base name for an operation (before uniqueness). */
export const baseToolName = (operationId: string, method: string, path: string): string => {
  const { words, prefix } = nameWords(operationId, method, path);
  const name = fitName(words, prefix, MAX_NAME);
  // Shortening may have dropped the first word (a prefix): a name still starts with a lower-case letter.
  return /^[a-z]/.test(name) ? name : fitName(["op", ...wordsOf(name)], [], MAX_NAME);
};

/**
 * Gives each base name a unique final name, in order: the first keeps its base, later ones take the
 * smallest free numeric suffix (the base refitted, by whole words, so that the whole stays within 20
 * characters). `taken` holds names already used in the provider by tools this import does not own.
 */
export const uniqueNames = (bases: ReadonlyArray<string>, taken: ReadonlySet<string>): Array<string> => {
  const used = new Set(taken);
  return bases.map((base) => {
    let name = base;
    for (let n = 2; used.has(name); n++) {
      const suffix = String(n);
      name = fitName(wordsOf(base), [], MAX_NAME - suffix.length) + suffix;
    }
    used.add(name);
    return name;
  });
};
