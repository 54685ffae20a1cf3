import { describe, expect, it } from "vitest";
import { baseToolName, uniqueNames, wordsOf } from "../src/openapi-import/tool-naming.js";

const NAME = /^[a-z][a-zA-Z0-9]{0,19}$/;

describe("tool names from operations", () => {
  it("keeps a short operationId as camelCase", () => {
    expect(baseToolName("listPets", "get", "/pets")).toBe("listPets");
    expect(baseToolName("get_user_by_name", "get", "/user/{name}")).toBe("getUserByName");
    expect(baseToolName("Pets.Create", "post", "/pets")).toBe("petsCreate");
  });

  it("splits camelCase, acronyms and digits into words", () => {
    expect(wordsOf("getHTTPResponse2xx")).toEqual(["get", "http", "response", "2xx"]);
    expect(wordsOf("issues/list-for-repo")).toEqual(["issues", "list", "for", "repo"]);
  });

  it("shortens long ids readably to 20 characters: stop words first, then the longest words", () => {
    expect(baseToolName("issues/list-for-repo", "get", "/repos/{owner}/{repo}/issues")).toBe("issuesListForRepo");
    const long = baseToolName("repos/list-for-authenticated-user", "get", "/user/repos");
    expect(long).toMatch(NAME);
    expect(long).toBe("reposListAuthentUser");
    expect(baseToolName("admin_conversations_ekm_listOriginalConnectedChannelInfo", "get", "/x")).toMatch(NAME);
  });

  it("names an operation without an operationId by its method and path", () => {
    expect(baseToolName("", "get", "/pets/{petId}")).toBe("getPetsByPetId");
    expect(baseToolName("", "post", "/stores/{storeId}/orders")).toBe("postStoresOrders");
    expect(baseToolName("", "delete", "/")).toBe("delete");
  });

  it("starts with a lower-case letter whatever the id", () => {
    expect(baseToolName("2fa/enable", "post", "/2fa")).toBe("op2faEnable");
    expect(baseToolName("___", "get", "/a-b")).toBe("getAB");
    for (const id of ["ÄÖÜ", "日本語", "💥", "-", "x".repeat(500)])
      expect(baseToolName(id, "get", "/x/{y}")).toMatch(NAME);
  });

  it("is deterministic and unique: repeats take the smallest free numeric suffix", () => {
    const bases = ["listPets", "listPets", "aVeryLongToolNameXyz", "aVeryLongToolNameXyz", "listPets"];
    const names = uniqueNames(bases, new Set(["listPets"]));
    expect(names).toEqual(["listPets2", "listPets3", "aVeryLongToolNameXyz", "aVeryLongToolNameXy2", "listPets4"]);
    expect(uniqueNames(bases, new Set(["listPets"]))).toEqual(names);
    for (const name of names) expect(name).toMatch(NAME);
  });
});
