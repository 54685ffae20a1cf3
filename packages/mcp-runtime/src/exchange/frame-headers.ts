import type { ServerResponse } from "node:http";

// Headers the host's request frame gives every answer of the runtime (request id, security headers, rate-limit
// budget): handed to `handleNode` rather than set on the response first, so that the fast lane writes them with
// its own in one `writeHead` (Node then keeps no per-header record and validates each line once).

/** A flat list of header names and values, in the order they are sent. */
export type FrameHeaders = ReadonlyArray<string>;

/** Sets the frame's headers on a response whose own headers are written later (Node sends these first). */
export const setFrameHeaders = (res: ServerResponse, frame: FrameHeaders | undefined): void => {
  if (frame === undefined) return;
  for (let i = 0; i + 1 < frame.length; i += 2) res.setHeader(frame[i] as string, frame[i + 1] as string);
};

/**
 * The frame's headers, then an answer's own (lower-case names), as one list for `writeHead`: the lines and order
 * `setFrameHeaders` followed by `writeHead(status, own)` sends. An own header the frame also has takes the
 * frame's place, with the answer's name and value (Node's `setHeader` on a name already set).
 */
export const withFrameHeaders = (
  frame: FrameHeaders | undefined,
  own: Readonly<Record<string, string>>,
): Record<string, string> | Array<string> => {
  if (frame === undefined) return own as Record<string, string>;
  const all = [...frame];
  for (const name in own) {
    const value = own[name] as string;
    let at = 0;
    while (at < all.length && !sameName(all[at] as string, name)) at += 2;
    if (at < all.length) {
      all[at] = name;
      all[at + 1] = value;
    } else all.push(name, value);
  }
  return all;
};

const sameName = (given: string, lower: string) => given.length === lower.length && given.toLowerCase() === lower;
