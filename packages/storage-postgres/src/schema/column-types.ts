import { p } from "@mikro-orm/postgresql";

// Column types every table uses (see entities.ts for the conventions).

/** Ids: byte order (`COLLATE "C"`), as the in-memory adapter compares strings. */
export const id = () => p.text().collation("C");
/** Millisecond timestamps, as the domain keeps them. */
export const timestamp = () => p.datetime(3);
