import { describe, expect, it } from "vitest";
import { OPERATIONS } from "../src/scopes/scope-policy.js";
import { operationOf } from "../src/use-case/define-use-case.js";
import { USE_CASES } from "../src/use-case/use-case-table.js";

describe("use-case table", () => {
  it("files each use case under the operation it checks the scope of", () => {
    for (const [name, useCase] of Object.entries(USE_CASES)) expect(operationOf(useCase), name).toBe(name);
  });

  it("holds every operation but the two OpenAPI imports, which need the import services", () => {
    expect(OPERATIONS.filter((operation) => !(operation in USE_CASES)).sort()).toEqual([
      "importProvider",
      "resyncProvider",
    ]);
  });

  it("refuses to name the operation of a function that is no use case", () => {
    expect(() => operationOf(() => undefined)).toThrow(TypeError);
  });
});
