import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import busboy from "busboy";
import qs from "qs";

// A local upstream that reads request bodies the way real APIs do: forms with `qs` (Stripe's bracket
// convention, as Rails and Express read them), multipart bodies with `busboy` (a streaming parser), other
// types as text or bytes. It answers 200 with what it understood, as JSON.

/** One multipart part as the upstream read it. */
export interface ParsedPart {
  readonly name: string;
  readonly value?: string;
  readonly filename?: string;
  readonly mimeType?: string;
  /** A file part's bytes, base64. */
  readonly base64?: string;
}

/** What the upstream understood of one request. */
export interface Understood {
  readonly method: string;
  readonly url: string;
  readonly contentType: string;
  /** The raw body as text (forms, text), for exact assertions. */
  readonly raw: string;
  /** The form read by `qs`. */
  readonly form?: unknown;
  readonly parts?: ReadonlyArray<ParsedPart>;
  /** The body's bytes, base64 (other types). */
  readonly base64?: string;
}

export interface ParsingUpstream {
  readonly port: number;
  readonly seen: Array<Understood>;
  readonly close: () => Promise<void>;
}

const readParts = (req: IncomingMessage) =>
  new Promise<Array<ParsedPart>>((resolve, reject) => {
    const parts: Array<ParsedPart> = [];
    const parser = busboy({ headers: req.headers });
    parser.on("field", (name, value, info) => parts.push({ name, value, mimeType: info.mimeType }));
    parser.on("file", (name, stream, info) => {
      const chunks: Array<Buffer> = [];
      stream.on("data", (c: Buffer) => chunks.push(c));
      stream.on("end", () =>
        parts.push({
          name,
          filename: info.filename,
          mimeType: info.mimeType,
          base64: Buffer.concat(chunks).toString("base64"),
        }),
      );
    });
    parser.on("close", () => resolve(parts));
    parser.on("error", reject);
    req.pipe(parser);
  });

const readBytes = async (req: IncomingMessage) => {
  const chunks: Array<Buffer> = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
};

/** Starts the parsing upstream on a free port of 127.0.0.1. */
export const startParsingUpstream = async (): Promise<ParsingUpstream> => {
  const seen: Array<Understood> = [];
  const server: Server = createServer((req, res) => {
    const contentType = req.headers["content-type"] ?? "";
    const base = { method: req.method ?? "", url: req.url ?? "", contentType };
    const answer = (understood: Understood) => {
      seen.push(understood);
      res.writeHead(200, { "Content-Type": "application/json" });
      res.end(JSON.stringify(understood));
    };
    const fail = (error: unknown) => {
      res.writeHead(400, { "Content-Type": "text/plain" });
      res.end(String(error));
    };
    if (contentType.startsWith("multipart/form-data"))
      readParts(req).then((parts) => answer({ ...base, raw: "", parts }), fail);
    else
      readBytes(req).then((bytes) => {
        const raw = bytes.toString("utf8");
        if (contentType.startsWith("application/x-www-form-urlencoded"))
          answer({ ...base, raw, form: qs.parse(raw, { depth: 10, arrayLimit: 100 }) });
        else answer({ ...base, raw, base64: bytes.toString("base64") });
      }, fail);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    port: (server.address() as AddressInfo).port,
    seen,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
};
