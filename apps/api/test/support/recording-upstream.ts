import type { IncomingMessage } from "node:http";
import { type Loopback, listenOnLoopback } from "./loopback.js";

/** One request a recording upstream received: its query as an object, its JSON body (undefined when empty). */
export interface RecordedRequest {
  readonly method: string;
  readonly path: string;
  readonly query: Record<string, string>;
  readonly body: unknown;
}

/** An upstream on loopback that answers `{"ok": true}` to every request and keeps what it received. */
export interface RecordingUpstream extends Loopback {
  readonly received: Array<RecordedRequest>;
}

const readAll = async (req: IncomingMessage) => {
  const chunks: Array<Buffer> = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
};

/**
 * Starts a recording upstream (what the import tests call their imported tools against). `documents` maps a
 * path to a JSON document it serves instead (a description to import by URL); those requests are not kept.
 */
export const startRecordingUpstream = (
  documents: Readonly<Record<string, () => unknown>> = {},
): Promise<RecordingUpstream> => {
  const received: Array<RecordedRequest> = [];
  return listenOnLoopback(async (req, res) => {
    const url = new URL(req.url ?? "/", "http://upstream");
    const document = documents[url.pathname];
    if (document !== undefined) {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify(document()));
      return;
    }
    const text = await readAll(req);
    received.push({
      method: req.method ?? "",
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
      body: text === "" ? undefined : JSON.parse(text),
    });
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify({ ok: true }));
  }).then((loopback) => ({ ...loopback, received }));
};
