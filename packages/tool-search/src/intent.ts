import { stem } from "./text.js";

// REST intent: what a query's verbs and question words say about the HTTP method of the operation it wants,
// and the operation's own verb, which REST puts in the last literal segment of its path
// (`/issues/{n}/lock`, `/campaigns/{id}/actions/cancel-send`, `/chat.postMessage`).

/** The methods each kind of request is done with, most likely first. */
const READ = ["GET"];
const CREATE = ["POST", "PUT"];
const CHANGE = ["PATCH", "PUT", "POST"];
const REMOVE = ["DELETE", "POST"];

/** Words that say which kind of request the user wants (stemmed when looked up). */
const INTENT_WORDS: ReadonlyArray<readonly [string, ReadonlyArray<string>]> = [
  [
    "list get show fetch retriev read view see find search look lookup display which what who whom whose when how many much is are does did check count histori",
    READ,
  ],
  [
    "create add new make post insert open start upload send book schedul invit regist subscrib give grant store save keep put allow let ask request",
    CREATE,
  ],
  ["updat edit modifi chang renam set mark move replac adjust fix turn enabl disabl", CHANGE],
  ["delet remov eras destroy drop purg trash discard cancel revok unsubscrib", REMOVE],
];

const intentByStem = new Map<string, ReadonlyArray<string>>();
for (const [words, methods] of INTENT_WORDS)
  for (const w of words.split(" ")) {
    intentByStem.set(w, methods);
    intentByStem.set(stem(w), methods);
  }

/**
 * Words that turn the verb after them into its undoing: "stop sharing", "no longer want", "never send",
 * "don't notify" ask to remove or switch off, whatever the verb says ("stop getting emails" is no read).
 */
const NEGATIONS = new Set(["stop", "quit", "cease", "no", "not", "never", "dont", "don", "without"].map(stem));

/** An order in words no intent word knows ("ring a number", "nudge me at 5"): some write, not a read. */
export const ACT: ReadonlyArray<string> = ["POST", "PUT", "PATCH", "DELETE"];

/**
 * The methods a query's first intent word points to (most likely first); ACT when it has none but opens
 * with a word `known` says no tool uses (an everyday verb: an order); else undefined.
 */
export const methodIntent = (
  queryStems: ReadonlyArray<string>,
  known: (stem: string) => boolean = () => true,
  negation = false,
): ReadonlyArray<string> | undefined => {
  for (const s of queryStems) {
    if (negation && NEGATIONS.has(s)) return REMOVE;
    const methods = intentByStem.get(s);
    if (methods !== undefined) return methods;
  }
  const first = queryStems[0];
  return first !== undefined && !known(first) ? ACT : undefined;
};

/** How much a tool's score is raised when its method is the query's likeliest (1st) or a possible one. */
export const INTENT_BOOST = [1.3, 1.1] as const;

/** The factor for a tool with `method` given the query's intent. */
export const intentFactor = (intent: ReadonlyArray<string> | undefined, method: string): number => {
  if (intent === undefined) return 1;
  if (intent === ACT) return ACT.includes(method) ? INTENT_BOOST[1] : 1;
  const at = intent.indexOf(method);
  return at === 0 ? INTENT_BOOST[0] : at > 0 ? INTENT_BOOST[1] : 1;
};

/** The operation's own verb or sub-resource: the last literal segment of its path (`{…}` and `.json` left out). */
export const lastSegment = (path: string): string => {
  const segments = path.split("/").filter((s) => s !== "" && !s.startsWith("{") && !s.startsWith("("));
  const last = (segments[segments.length - 1] ?? "").replace(/\{[^}]*\}|\.json$/gi, "").replace(/\.$/, "");
  // Dotted RPC-style names (`chat.postMessage`) keep their last part.
  return last.slice(last.lastIndexOf(".") + 1);
};
