import { type IncomingHttpHeaders, request as httpRequest } from "node:http";

export interface Raw {
  readonly status: number;
  readonly headers: ReadonlyArray<string>;
  readonly body: string;
}

/** One HTTP exchange, its raw answer (header lines in order, without Date, which moves). */
export const send = (base: string, path: string, headers: Record<string, string>, body: string): Promise<Raw> =>
  new Promise((resolve, reject) => {
    const req = httpRequest(`${base}${path}`, { method: "POST", headers }, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => {
        text += chunk;
      });
      res.on("end", () => {
        const lines: string[] = [];
        for (let i = 0; i < res.rawHeaders.length; i += 2)
          if (res.rawHeaders[i]?.toLowerCase() !== "date") lines.push(`${res.rawHeaders[i]}: ${res.rawHeaders[i + 1]}`);
        resolve({ status: res.statusCode ?? 0, headers: lines, body: text });
      });
    });
    req.on("error", reject);
    req.end(body);
  });

/** A JSON POST to `url` with full control of the headers (Host included): status, parsed headers and body. */
export const postJson = (url: string, headers: Record<string, string>, body: unknown) =>
  new Promise<{ status: number; headers: IncomingHttpHeaders; body: string }>((resolve, reject) => {
    const target = new URL(url);
    const req = httpRequest(
      {
        host: target.hostname,
        port: target.port,
        path: target.pathname,
        method: "POST",
        headers: { "Content-Type": "application/json", Accept: "application/json, text/event-stream", ...headers },
      },
      (res) => {
        const chunks: Array<Buffer> = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString("utf8") }),
        );
      },
    );
    req.on("error", reject);
    req.end(JSON.stringify(body));
  });
