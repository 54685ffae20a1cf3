import { stemmer } from "stemmer";

// How text becomes index terms, the same way for tool fields and for queries: identifiers are split
// (`getUser`, `get_user`, `get-user`, `/users/{user_id}` and `get user` all give `get` + `user`), words
// are lower-cased, filler words dropped and the rest Porter-stemmed (`repositories` → `repositori`).

/** Runs of letters or digits; everything else (punctuation, `_`, `-`, `/`, `{}`) separates. */
const RUNS = /[\p{L}\p{N}]+/gu;
/** Boundaries inside an identifier: `fooBar`, `HTTPServer` → `HTTP|Server`, `v1beta` → `v|1|beta`. */
const CAMEL = /(?<=\p{Ll})(?=\p{Lu})|(?<=\p{Lu})(?=\p{Lu}\p{Ll})|(?<=\p{L})(?=\p{N})|(?<=\p{N})(?=\p{L})/u;

const ASCII = /^[\x00-\x7f]*$/;
const RUNS_ASCII = /[A-Za-z0-9]+/g;
const HAS_BOUNDARY_ASCII = /[a-z][A-Z]|[A-Z][A-Z][a-z]|[A-Za-z][0-9]|[0-9][A-Za-z]/;

/** True when a run has a CAMEL boundary (a cheap test first: most runs are plain words). */
const HAS_BOUNDARY = /\p{Ll}\p{Lu}|\p{Lu}\p{Lu}\p{Ll}|\p{L}\p{N}|\p{N}\p{L}/u;

/** Words that carry no meaning for finding an operation. `me`/`my` stay: `/me/...` paths mean the caller. */
const STOP_WORDS = new Set(
  (
    "a an and are as at be been being but by can could do does for from has have how i if in into is it its " +
    "of on or our should so than that the their them then there these they this those to was we were what " +
    "when where which who whom will with would you your yours"
  ).split(" "),
);

/** The words of a text, identifiers split, lower-cased, before stop-word removal and stemming. */
export const words = (text: string): Array<string> => {
  const out: Array<string> = [];
  // ASCII text (nearly all of it) takes the same rules with ASCII classes, which run several times faster.
  const ascii = ASCII.test(text);
  const boundary = ascii ? HAS_BOUNDARY_ASCII : HAS_BOUNDARY;
  for (const run of text.match(ascii ? RUNS_ASCII : RUNS) ?? [])
    if (boundary.test(run)) for (const part of run.split(CAMEL)) out.push(part.toLowerCase());
    else out.push(run.toLowerCase());
  return out;
};

const stems = new Map<string, string>();
/** The stem of one lower-case word (memoized: the vocabulary of a catalog is small). */
export const stem = (word: string): string => {
  let cached = stems.get(word);
  if (cached === undefined) {
    cached = /^\p{N}+$/u.test(word) ? word : stemmer(word);
    if (stems.size < 100_000) stems.set(word, cached);
  }
  return cached;
};

/** True for words that carry no meaning for finding an operation. */
export const isStopWord = (word: string): boolean => STOP_WORDS.has(word);

/** The index terms of a text: split, lower-cased, stop words dropped, stemmed. */
export const terms = (text: string): Array<string> => {
  const out: Array<string> = [];
  for (const word of words(text)) if (!STOP_WORDS.has(word)) out.push(stem(word));
  return out;
};
