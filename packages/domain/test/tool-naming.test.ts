import { describe, expect, it } from "vitest";
import { baseToolName, TOOL_NAME_ABBREVIATIONS, uniqueNames, wordsOf } from "../src/openapi-import/tool-naming.js";

const NAME = /^[a-z][a-zA-Z0-9]{0,19}$/;

describe("tool names from operations", () => {
  it("keeps a short operationId as camelCase", () => {
    expect(baseToolName("listPets", "get", "/pets")).toBe("listPets");
    expect(baseToolName("get_user_by_name", "get", "/user/{name}")).toBe("getUserByName");
    expect(baseToolName("Pets.Create", "post", "/pets")).toBe("createPets");
  });

  it("splits camelCase, acronyms and digits into words", () => {
    expect(wordsOf("getHTTPResponse2xx")).toEqual(["get", "http", "response", "2xx"]);
    expect(wordsOf("issues/list-for-repo")).toEqual(["issues", "list", "for", "repo"]);
  });

  it("puts the verb first and drops a tag prefix the rest repeats", () => {
    expect(baseToolName("issues/list-for-repo", "get", "/repos/{owner}/{repo}/issues")).toBe("listIssuesForRepo");
    expect(baseToolName("issues/list-issues", "get", "/issues")).toBe("listIssues");
    expect(baseToolName("compute.instances.list", "get", "/x")).toBe("listComputeInstances");
    expect(baseToolName("Pets_ListByOwner", "get", "/x")).toBe("listPetsByOwner");
    expect(baseToolName("userGet", "get", "/x")).toBe("getUser");
  });

  it("shortens to 20 characters with whole words and listed abbreviations, never a cut word", () => {
    const cases: Array<[string, string]> = [
      ["repos/create-issue-comment", "createIssueComment"],
      ["reactions/create-for-issue-comment", "createReactions"],
      ["actions/list-self-hosted-runners-for-repo", "listHostedRunners"],
      ["repos/list-for-authenticated-user", "listReposUser"],
      ["GetSubscriptionItemsSubscriptionItemUsageRecordSummaries", "getRecordSummaries"],
      ["GetAccountsAccountCapabilities", "getAcctsCapabilities"],
    ];
    for (const [id, name] of cases) expect(baseToolName(id, "get", "/x")).toBe(name);
    for (const id of [
      "admin.conversations.ekm.listOriginalConnectedChannelInfo",
      "a".repeat(30),
      ...cases.map(([i]) => i),
    ]) {
      const name = baseToolName(id, "get", "/x");
      expect(name).toMatch(NAME);
      const allowed = new Set([...wordsOf(id), ...Object.values(TOOL_NAME_ABBREVIATIONS)]);
      if (id !== "a".repeat(30)) for (const word of wordsOf(name)) expect(allowed).toContain(word);
    }
  });

  it("names an operation without an operationId by its method and path", () => {
    expect(baseToolName("", "get", "/pets/{petId}")).toBe("getPetsByPetId");
    expect(baseToolName("", "post", "/stores/{storeId}/orders")).toBe("postStoresOrders");
    expect(baseToolName("", "delete", "/")).toBe("delete");
  });

  it("starts with a lower-case letter whatever the id", () => {
    expect(baseToolName("2fa/enable", "post", "/2fa")).toBe("enable2fa");
    expect(baseToolName("___", "get", "/a-b")).toBe("getAB");
    expect(baseToolName("app.api.endpoints.JB2008.sample_atmosphere", "get", "/jb2008")).toMatch(NAME);
    for (const id of ["ÄÖÜ", "日本語", "💥", "-", "x".repeat(500)])
      expect(baseToolName(id, "get", "/x/{y}")).toMatch(NAME);
  });

  it("is deterministic and unique: repeats take the smallest free numeric suffix", () => {
    const bases = ["listPets", "listPets", "aVeryLongToolNameXyz", "aVeryLongToolNameXyz", "listPets"];
    const names = uniqueNames(bases, new Set(["listPets"]));
    // A suffix never cuts a word: the base is refitted by whole words.
    expect(names).toEqual(["listPets2", "listPets3", "aVeryLongToolNameXyz", "aLongToolNameXyz2", "listPets4"]);
    expect(uniqueNames(bases, new Set(["listPets"]))).toEqual(names);
    for (const name of names) expect(name).toMatch(NAME);
  });
});
