// A tool's description as one line for search results: enough to choose by, few tokens.

/** Longest one-line description in a search result, in characters. */
export const ONE_LINE_MAX = 160;
const MIN_SENTENCE = 12;

/** The first sentence (or line) of `text`, white space collapsed, cut at a word to ONE_LINE_MAX with "…". */
export const oneLine = (text: string): string => {
  const flat = text.replace(/\s+/g, " ").trim();
  // A sentence ends at . ! or ? before white space, past the first few characters ("e.g. " comes later).
  const end = /[.!?](\s|$)/g;
  end.lastIndex = MIN_SENTENCE;
  const match = end.exec(flat);
  const sentence = match !== null ? flat.slice(0, match.index + 1) : flat;
  if (sentence.length <= ONE_LINE_MAX) return sentence;
  const cut = sentence.slice(0, ONE_LINE_MAX - 1);
  const space = cut.lastIndexOf(" ");
  return `${space > ONE_LINE_MAX / 2 ? cut.slice(0, space) : cut}…`;
};
