import { stem, words } from "./text.js";

// A small thesaurus of the words people use for REST operations and the things common APIs manage. A
// query term also matches its group's other words, at a lower weight (SYNONYM_WEIGHT), so "erase a song
// from my mix" can find "Remove Playlist Items". General vocabulary only: no group names one API's
// operation, and a group is a set of words a user could mean interchangeably.

const GROUPS: ReadonlyArray<string> = [
  // verbs
  "delete remove erase destroy drop discard purge unset trash",
  "create add new make insert register post start open",
  "update edit modify change alter patch set replace rename adjust",
  "get fetch retrieve read show view see look display inspect describe detail info information",
  "list enumerate browse all every index",
  "search find query lookup filter locate",
  "cancel abort void revoke",
  "close resolve finish complete end",
  "send deliver post dispatch notify",
  "upload attach",
  "download export",
  "follow subscribe watch",
  "unfollow unsubscribe unwatch",
  "star favorite favourite like bookmark save heart",
  "unstar unfavorite unlike unsave",
  "invite invitation",
  "block ban",
  "assign assignee allocate",
  "verify check confirm validate",
  "copy clone duplicate fork",
  "move transfer",
  "lock freeze",
  "unlock unfreeze",
  "archive shelve",
  "merge combine",
  "approve accept",
  "reject decline deny dismiss",
  "play resume start playback",
  "pause stop halt",
  "skip next",
  "previous back prior",
  "recommend recommendation suggest suggestion",
  "schedule later timer",
  "remind reminder",
  "pin stick",
  "react reaction emoji",
  "count number total many",
  "refund reimburse repay",
  "pay payment charge",
  "capture collect",
  // the caller
  "me my mine i current authenticated own myself",
  // things
  "user person people member account profile someone somebody individual",
  "repository repo project codebase",
  "issue ticket bug",
  "pull pr request merge",
  "message chat text note",
  "channel conversation room",
  "comment reply remark feedback",
  "organization org company enterprise business",
  "team group squad usergroup",
  "file document attachment",
  "secret credential password",
  "token key",
  "webhook hook callback",
  "event activity notification alert",
  "release version",
  "tag label",
  "commit revision",
  "workflow pipeline automation",
  "job run build",
  "email mail",
  "gist snippet paste",
  "permission access role right",
  "collaborator contributor",
  "price cost fee amount",
  "product item goods sku",
  "coupon discount promo promotion",
  "balance funds",
  "payout withdrawal",
  "dispute chargeback",
  "card credit debit",
  "customer client buyer shopper payer",
  "subscription plan recurring membership",
  "invoice bill billing",
  "receipt",
  "quote estimate",
  "tax vat",
  "status state",
  "track song tune music",
  "playlist mix",
  "album record",
  "artist musician band singer performer",
  "episode podcast show",
  "audiobook book chapter",
  "device speaker player",
  "volume loudness",
  "shuffle random",
  "queue upcoming",
  "recent recently history lately",
  "top favorite most",
  "genre style",
  "presence online away active",
  "snooze dnd disturb",
  "workspace slack",
  "thread",
  "deployment deploy environment",
  "vulnerability security advisory",
  "sponsor sponsorship",
  "license licence",
  "topic subject",
  "language",
  "traffic visitor clone",
  "milestone deadline goal",
  "branch",
  "image picture photo avatar icon",
  "name title",
  "description summary",
  "setting settings preference config configuration",
  "owner",
  "link url",
];

/** How much a synonym counts compared with the query's own word (chosen by measurement, bench/). */
export const SYNONYM_WEIGHT = 0.3;

const related = new Map<string, Set<string>>();
for (const group of GROUPS) {
  const stems = [...new Set(words(group).map(stem))];
  for (const s of stems) {
    const set = related.get(s) ?? new Set<string>();
    related.set(s, set);
    for (const other of stems) if (other !== s) set.add(other);
  }
}

/** The stems related to one stem (empty when it has none). */
export const synonymsOf = (s: string): ReadonlySet<string> => related.get(s) ?? new Set();
