import { request as httpRequest } from "node:http";

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
