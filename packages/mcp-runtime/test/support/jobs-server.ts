import { ref } from "./fixture.js";
import { actorOf, makeServices, manage, type RunningMcp, type Services, startMcp } from "./harness.js";
import { type OperationsUpstream, startOperationsUpstream } from "./operations-upstream.js";

type McpSettings = Parameters<typeof startMcp>[1];
type Manager = ReturnType<typeof manage>;

/** The "Jobs" server the long-running tests call: its services, upstream, MCP endpoint, id and token. */
export interface JobsServer {
  readonly services: Services;
  readonly upstream: OperationsUpstream;
  readonly mcp: RunningMcp;
  readonly serverId: string;
  readonly token: string;
}

/**
 * Starts the operations upstream and an MCP endpoint with `settings`, and composes "Jobs": the keyed POSTs
 * threeLooks (done after three looks), failing and forever, plus whatever `more` adds to the provider.
 */
export const startJobsServer = async (
  settings: McpSettings,
  more: (m: Manager, providerId: string, keyedPost: (name: string, path: string) => Promise<unknown>) => Promise<void>,
): Promise<JobsServer> => {
  const services = makeServices();
  const upstream = await startOperationsUpstream();
  const mcp = await startMcp(services, { upstreamAllowedNetworks: ["127.0.0.0/8"], ...settings });
  const m = manage(services, actorOf("acme"));
  const provider = await m.provider({ name: "Jobs", baseURL: `http://localhost:${upstream.port}/api/` });
  await m.variable("LOCALHOST_KEY", "the-key");
  const post = (name: string, path: string) =>
    m.tool(provider.id, { name, method: "POST", path, headers: [{ key: "X-Api-Key", value: ref("LOCALHOST_KEY") }] });
  await post("threeLooks", "/jobs/3");
  await post("failing", "/failing");
  await post("forever", "/forever");
  await more(m, provider.id, post);
  const server = await m.server({ name: "Jobs", providers: [{ id: provider.id }] });
  return { services, upstream, mcp, serverId: server.id, token: (await m.token(server.id)).value };
};
