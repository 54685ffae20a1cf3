import { describe, expect, it } from "vitest";
import { scanImportBody } from "../src/http/import-body.js";

// The one pass that cuts `import.document` out of an import's body unparsed (src/http/import-body.ts).

const scan = (text: string) => {
  const bytes = Buffer.from(text, "utf8");
  const found = scanImportBody(bytes);
  return {
    depth: found.depth,
    document: found.document && bytes.subarray(found.document.start, found.document.end).toString("utf8").trim(),
    members: found.document?.members,
  };
};

describe("scanImportBody", () => {
  it("finds the document's value, whatever comes around it, and counts its members", () => {
    expect(
      scan(
        '{"a":[1,{"import":2}],"import":{"provider":{"name":"x"},"document":{"k":"v:}\\"","o":{"p":[]}},"dryRun":true}}',
      ),
    ).toEqual({
      depth: 5,
      document: '{"k":"v:}\\"","o":{"p":[]}}',
      members: 3,
    });
    expect(scan('{"import":{"document": "openapi: 3.0.3\\nx: é" }}')).toMatchObject({
      document: '"openapi: 3.0.3\\nx: é"',
      members: 0,
    });
  });

  it("finds none where there is none at the top level's import", () => {
    expect(scan('[{"import":{"document":{}}}]').document).toBeUndefined();
    expect(scan('{"x":{"import":{"document":{}}}}').document).toBeUndefined();
    expect(scan('{"import":"document","x":{"document":{}}}').document).toBeUndefined();
    expect(scan('{"import":{"url":"https://a.example"}}').document).toBeUndefined();
    expect(scan('{"import":{"document":{"a":1').document).toBeUndefined();
  });
});
