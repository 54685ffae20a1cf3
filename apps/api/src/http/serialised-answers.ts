import { etagOf } from "./entity-tag.js";
import type { Reply } from "./route-table.js";

// The serialised 200 answers of a read route whose answer is derived from one cached server graph (GET
// /servers/{id}: 5 providers × 10 tools are ~23 KB of JSON, rebuilt and serialised per request otherwise).
// An answer is kept on the graph *object* the storage's read cache holds (a WeakMap), so it lives exactly as
// long as that cache entry: a change anyone commits (heard at once on the writing instance, by LISTEN on the
// others), the entry's maximum age, or its eviction gives the next read a new graph object, which has no
// answer yet. Who may read it is the domain's rule (`mayReadServerGraph`), checked before a lookup.

/** A 200 answer as bytes, with the ETag that goes with it. */
export interface SerialisedAnswer {
  /** `JSON.stringify` of the reply's body, as Koa would have sent it. */
  readonly body: Buffer;
  readonly etag: string | undefined;
}

/** Serialised answers, each kept on the cached graph it was built from. */
export class SerialisedAnswers {
  private readonly answers = new WeakMap<object, SerialisedAnswer>();

  /** The answer built from `graph`, if one was kept. */
  lookup(graph: object): SerialisedAnswer | undefined {
    return this.answers.get(graph);
  }

  /** Serialises `reply` (a 200 built from `graph`) and keeps it on `graph`. */
  keep(graph: object, reply: Reply): SerialisedAnswer {
    const answer: SerialisedAnswer = {
      body: Buffer.from(JSON.stringify(reply.body)),
      etag: reply.version === undefined ? undefined : etagOf(reply.version),
    };
    this.answers.set(graph, answer);
    return answer;
  }
}
