import { stem } from "./text.js";

// Phrasal verbs and set phrases: everyday English whose meaning is not in its words ("get rid of" is
// delete, "hang up" ends a call, "sign off on" approves). Each word of them alone misleads the search
// ("get" says read, "up" says nothing), so a query's phrase is replaced by the API words it means before
// the search reads it. General English only: no entry names one API's operation.
//
// Phrases match on stems, so "signed up" and "logged in" are "sign up" and "log in".
// A phrasal verb's particle may stand a few words after its verb ("kick everyone out", "hand the ticket to").

/** How many words may stand between a phrasal verb and its particle. */
const GAP = 3;

/** [phrase, API words]: the first API word is the verb the search's REST intent reads. */
const ENTRIES: ReadonlyArray<readonly [string, string]> = [
  // removing
  ["get rid of", "delete remove"],
  ["throw away", "delete trash"],
  ["throw out", "delete trash"],
  ["take down", "delete unpublish"],
  ["take off", "remove delete"],
  ["wipe out", "delete"],
  ["cut off", "revoke remove"],
  ["lock out", "block remove"],
  ["for good", "delete permanently"],
  // stopping and ending
  ["hang up", "update end call status completed"],
  ["shut down", "shutdown power off"],
  ["switch off", "disable off"],
  ["turn off", "disable off"],
  ["call off", "cancel"],
  ["give up", "cancel"],
  ["log out", "revoke session logout"],
  ["sign out", "revoke session logout"],
  // starting and making
  ["set up", "create new"],
  ["fire up", "start create"],
  ["switch on", "enable on"],
  ["turn on", "enable on"],
  ["go live", "publish start"],
  ["sign in", "session auth login"],
  ["log in", "session auth login"],
  // changing
  ["turn down", "decline volume"],
  ["push back", "update reschedule"],
  ["put off", "update reschedule"],
  ["move up", "update reschedule"],
  ["fill in", "update"],
  ["roll back", "revert restore"],
  ["bring back", "restore untrash"],
  ["put back", "restore untrash"],
  ["hand … to", "assign transfer"],
  ["give … to", "assign transfer"],
  ["hand over", "assign transfer"],
  ["hand off", "assign transfer"],
  ["pass on", "forward"],
  ["break up", "subtask split"],
  ["break down", "subtask split"],
  ["split up", "subtask split"],
  // people
  ["sign up", "add subscribe register registrants member"],
  ["opt in", "subscribe"],
  ["opt out", "unsubscribe unsubscribed"],
  ["let in", "invite add member"],
  ["bring in", "invite add member"],
  ["team up", "collaborator add"],
  // approving and rejecting
  ["sign off", "approve"],
  ["thumbs up", "approve reaction like"],
  ["thumbs down", "reject reaction"],
  ["green light", "approve"],
  // reading and following
  ["get notified", "watch webhook notification subscribe"],
  ["be notified", "watch webhook notification subscribe"],
  ["get pinged", "watch webhook notification subscribe"],
  ["get alerted", "watch webhook notification subscribe"],
  ["be told", "watch webhook notification subscribe"],
  ["get a new", "create new"],
  ["who am i", "get me myself current authenticated user"],
  ["look up", "get search"],
  ["find out", "get"],
  ["check on", "get status"],
  ["keep track of", "watch follow"],
  ["keep an eye on", "watch follow subscribe"],
  ["hear about", "follow watch subscribe notification"],
  ["catch up", "history recent"],
  ["add up", "total count"],
  ["sum up", "summary total"],
  ["print out", "export download"],
  // sending
  ["send out", "send"],
  ["mail out", "send"],
  ["blast out", "send"],
  ["reach out", "send message"],
  // keeping
  ["back up", "backup snapshot"],
  ["set aside", "hold save"],
  ["for later", "save star watchlater"],
  ["find it later", "save star"],
  ["over and over", "repeat"],
  ["on repeat", "repeat"],
  ["again and again", "repeat"],
  ["to do", "task"],
  ["every time", "webhook event"],
  ["each time", "webhook event"],
  ["how did", "get report stats"],
  ["at once", "conference"],
  // money
  ["top up", "add funds balance"],
  ["pay out", "payout"],
  ["pay back", "refund"],
  ["charge back", "dispute"],
];

/** Particles: a phrase whose last word is one of these may have words between its verb and it. */
const PARTICLES = new Set(["up", "down", "off", "out", "away", "back", "on", "in", "over"].map(stem));

interface Phrase {
  readonly words: ReadonlyArray<string>;
  readonly replacement: ReadonlyArray<string>;
  readonly separable: boolean;
}

const byFirstWord = new Map<string, Array<Phrase>>();
for (const [phrase, api] of ENTRIES) {
  // "hand … to": a verb and a preposition that may have the verb's object between them.
  const words = phrase
    .split(" ")
    .filter((w) => w !== "…")
    .map(stem);
  const first = words[0] as string;
  const list = byFirstWord.get(first) ?? [];
  byFirstWord.set(first, list);
  list.push({
    words,
    replacement: api.split(" "),
    separable: words.length === 2 && (PARTICLES.has(words[1] as string) || phrase.includes("…")),
  });
}
// Longer phrases first, so "keep an eye on" wins over a shorter one with the same first word.
for (const list of byFirstWord.values()) list.sort((a, b) => b.words.length - a.words.length);

/** Where `phrase` matches at `at` in `words`: the indexes of its words, or undefined. */
const matchAt = (words: ReadonlyArray<string>, at: number, phrase: Phrase): Array<number> | undefined => {
  const contiguous = phrase.words.every((w, i) => words[at + i] === w);
  if (contiguous) return phrase.words.map((_, i) => at + i);
  if (!phrase.separable) return undefined;
  const particle = phrase.words[1];
  for (let j = at + 2; j <= at + 1 + GAP && j < words.length; j++) if (words[j] === particle) return [at, j];
  return undefined;
};

/** The query's words with each phrase replaced by the API words it means (in the phrase's place). */
export const rewritePhrases = (words: ReadonlyArray<string>): Array<string> => {
  const out: Array<string> = [];
  const dropped = new Set<number>();
  const stems = words.map(stem);
  for (let i = 0; i < words.length; i++) {
    if (dropped.has(i)) continue;
    const word = words[i] as string;
    const candidates = byFirstWord.get(stems[i] as string);
    const match = candidates
      ?.map((phrase) => ({ phrase, at: matchAt(stems, i, phrase) }))
      .find((m) => m.at !== undefined);
    if (match?.at === undefined) {
      out.push(word);
      continue;
    }
    for (const j of match.at) dropped.add(j);
    out.push(...match.phrase.replacement);
  }
  return out;
};
