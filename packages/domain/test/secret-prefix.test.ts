import { describe, expect, it } from "vitest";
import { Schema } from "effect";
import fc from "fast-check";
import { MAX_SECRET_PREFIX_LENGTH, secretPrefixOf } from "../src/provider/secret-prefix.js";
import { VariableName } from "../src/variable/variable-schema.js";

describe("secretPrefixOf", () => {
  it("derives the prefix from the host", () => {
    expect(secretPrefixOf("https://api.github.com/v3")).toBe("API_GITHUB_COM");
    expect(secretPrefixOf("https://api.github.com")).toBe("API_GITHUB_COM");
  });

  it("drops a leading www.", () => {
    expect(secretPrefixOf("https://www.example.co.uk")).toBe("EXAMPLE_CO_UK");
    expect(secretPrefixOf("https://WWW.Example.com/")).toBe("EXAMPLE_COM");
  });

  it("keeps a www that is not leading", () => {
    expect(secretPrefixOf("https://api.www.example.com")).toBe("API_WWW_EXAMPLE_COM");
  });

  it("ignores ports, paths, queries and the scheme", () => {
    expect(secretPrefixOf("http://localhost:8080/v1?x=1")).toBe("LOCALHOST");
    expect(secretPrefixOf("https://api.github.com:8443/v3")).toBe("API_GITHUB_COM");
    expect(secretPrefixOf("http://api.github.com")).toBe(secretPrefixOf("https://api.github.com:443"));
  });

  it("turns every non-alphanumeric character into _", () => {
    expect(secretPrefixOf("https://my-api.example.com")).toBe("MY_API_EXAMPLE_COM");
    expect(secretPrefixOf("https://my-api.example.com")).toMatch(/^[A-Z0-9_]+$/);
  });

  it("is always a valid start of a variable name: IP-address hosts, digit-first names, long names", () => {
    expect(secretPrefixOf("http://127.0.0.1:3000")).toBe("_127_0_0_1");
    expect(secretPrefixOf("http://[::1]:3000")).toBe("___1_");
    expect(secretPrefixOf("https://1password.com")).toBe("_1PASSWORD_COM");
    expect(secretPrefixOf(`https://${"a".repeat(60)}.${"b".repeat(60)}.com`)).toHaveLength(MAX_SECRET_PREFIX_LENGTH);
    const validName = Schema.is(VariableName);
    fc.assert(
      fc.property(fc.webUrl(), fc.stringMatching(/^[A-Z0-9_]{1,27}$/), (url, suffix) => {
        expect(validName(`${secretPrefixOf(url)}_${suffix}`)).toBe(true);
      }),
    );
  });
});
