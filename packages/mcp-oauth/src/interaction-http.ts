import type { IncomingMessage, ServerResponse } from "node:http";

// The HTTP of the interaction pages (consent, sign-in): reading their form posts and sending them.

/** The urlencoded form of a request, refused past `limit` bytes. */
export const readForm = async (req: IncomingMessage, limit = 16 * 1024): Promise<URLSearchParams> => {
  const chunks: Array<Buffer> = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) throw new Error("form too large");
    chunks.push(chunk);
  }
  return new URLSearchParams(Buffer.concat(chunks).toString("utf8"));
};

/** An HTML page that no cache keeps and no other page frames or loads anything into. */
export const sendHtml = (res: ServerResponse, status: number, html: string) => {
  res.writeHead(status, {
    "Content-Type": "text/html; charset=utf-8",
    "Cache-Control": "no-store",
    "Content-Security-Policy":
      "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'",
    "X-Frame-Options": "DENY",
  });
  res.end(html);
};
