// The seed every bench of the hot paths uses: the perf harness's 5 providers × 10 tools, through the API.

/** 5 providers × 10 tools through the API; answers the `providers` of a server using every tool. */
export const seedProviderLinks = async (api) => {
  const links = [];
  for (let i = 0; i < 5; i++) {
    const { provider } = await api("POST", "/providers", {
      provider: { name: `Bench provider ${i}`, baseURL: "http://127.0.0.1:9", description: `Collection ${i}` },
    });
    const tools = [];
    for (let j = 0; j < 10; j++) {
      const { tool } = await api("POST", `/providers/${provider.id}/tools`, {
        tool: {
          name: `getP${i}T${j}`,
          title: `Item lookup ${i}.${j}`,
          description: `Reads one item of collection ${i}.${j} by id.`,
          method: "GET",
          path: `/p${i}/t${j}/items/{id}`,
          pathArgsJSONSchema: { type: "object", properties: { id: { type: "string" } }, required: ["id"] },
          queryArgsJSONSchema: { type: "object", properties: { verbose: { type: "boolean" } } },
        },
      });
      tools.push({ id: tool.id });
    }
    links.push({ id: provider.id, tools });
  }
  return links;
};
