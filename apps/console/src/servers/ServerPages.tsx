import type { Server } from "@mcpsm/client";
import { useCallback, useEffect, useState } from "react";
import { Button, Tab, TabList, TabPanel, Tabs } from "react-aria-components";
import { api, run } from "../api/client.js";
import type { Problem } from "../api/problem.js";
import { navigate } from "../app/route.js";
import { AuditTrail } from "../audit/AuditTrail.js";
import { Busy } from "../components/Busy.js";
import { ProblemBanner } from "../components/ProblemBanner.js";
import { GitSync } from "../extensions/GitSync.js";
import { ConnectPanel } from "./ConnectPanel.js";
import { ServerCompose } from "./ServerCompose.js";
import { ServerHistory } from "./ServerHistory.js";
import { ExportPanel } from "./ServerTransfer.js";
import { TokensPanel } from "./TokensPanel.js";
import { ToolSettingsPanel } from "./ToolSettingsPanel.js";
import { ServerUsage } from "../usage/UsagePages.js";
import { TryTool } from "./TryTool.js";

/** Every server of the tenant. */
export const ServersPage = () => {
  const [servers, setServers] = useState<ReadonlyArray<Server>>();
  const [problem, setProblem] = useState<Problem>();
  useEffect(() => {
    void run(api.GET("/servers")).then((out) => (out.ok ? setServers(out.data.servers) : setProblem(out.problem)));
  }, []);
  return (
    <section aria-labelledby="servers-title">
      <div className="heading">
        <h1 id="servers-title">Servers</h1>
        <div className="actions">
          <a className="button" href="#/servers/import">
            Import server
          </a>
          <a className="button primary" href="#/servers/new">
            New server
          </a>
        </div>
      </div>
      <ProblemBanner problem={problem} />
      {servers === undefined && problem === undefined && <Busy label="Loading servers" />}
      {servers !== undefined && (
        <table className="table">
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Providers</th>
              <th scope="col">Tools</th>
              <th scope="col">Discovery</th>
            </tr>
          </thead>
          <tbody>
            {servers.map((s) => (
              <tr key={s.id}>
                <td>
                  <a href={`#/servers/${s.id}`}>{s.name}</a>
                </td>
                <td>{s.providers.length}</td>
                <td>{s.providers.reduce((n, p) => n + p.tools.length, 0)}</td>
                <td>{s.dynamicToolDiscoveryEnabled ? "on" : "off"}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {servers?.length === 0 && <p className="muted">No servers yet.</p>}
    </section>
  );
};

/** Compose a new server. */
export const NewServerPage = () => (
  <section aria-labelledby="new-server-title">
    <h1 id="new-server-title">New server</h1>
    <ServerCompose server={undefined} onSaved={(s) => navigate(`/servers/${s.id}`)} />
  </section>
);

/** One server: compose, tokens, client configuration, try a tool, audit trail. */
export const ServerPage = (props: { readonly id: string }) => {
  const { id } = props;
  const [server, setServer] = useState<Server>();
  const [problem, setProblem] = useState<Problem>();
  const [generation, setGeneration] = useState(0);
  const load = useCallback(async () => {
    const out = await run(api.GET("/servers/{id}", { params: { path: { id } } }));
    if (!out.ok) return setProblem(out.problem);
    setServer(out.data.server);
    setGeneration((g) => g + 1);
  }, [id]);
  useEffect(() => {
    void load();
  }, [load]);
  if (server === undefined)
    return problem === undefined ? <Busy label="Loading the server" /> : <ProblemBanner problem={problem} />;
  return (
    <section aria-labelledby="server-title">
      <div className="heading">
        <h1 id="server-title">{server.name}</h1>
        <div className="actions">
          <span className="muted">version {server.version}</span>
          <Button
            className="button danger"
            onPress={async () => {
              if (!window.confirm(`Delete the server ${server.name}?`)) return;
              const out = await run(api.DELETE("/servers/{id}", { params: { path: { id } } }));
              if (out.ok) navigate("/servers");
              else setProblem(out.problem);
            }}
          >
            Delete server
          </Button>
        </div>
      </div>
      <ProblemBanner problem={problem} />
      <Tabs>
        <TabList aria-label="Server" className="tabs">
          <Tab id="compose">Compose</Tab>
          <Tab id="tokens">Tokens</Tab>
          <Tab id="connect">Connect</Tab>
          <Tab id="try">Try a tool</Tab>
          <Tab id="usage">Usage</Tab>
          <Tab id="audit">Audit</Tab>
          <Tab id="git">Git sync</Tab>
          <Tab id="export">Export</Tab>
          <Tab id="history">History</Tab>
          <Tab id="tool-settings">Tool settings</Tab>
        </TabList>
        <TabPanel id="compose">
          <ServerCompose key={generation} server={server} onSaved={() => void load()} onReload={() => void load()} />
        </TabPanel>
        <TabPanel id="tokens">
          <TokensPanel serverId={id} onMinted={() => setGeneration((g) => g)} />
        </TabPanel>
        <TabPanel id="connect">
          <ConnectPanel serverId={id} name={server.name} />
        </TabPanel>
        <TabPanel id="try">
          <TryTool serverId={id} />
        </TabPanel>
        <TabPanel id="usage">
          <ServerUsage serverId={id} />
        </TabPanel>
        <TabPanel id="audit">
          <AuditTrail targetId={id} />
        </TabPanel>
        <TabPanel id="git">
          <GitSync server={server} />
        </TabPanel>
        <TabPanel id="export">
          <ExportPanel serverId={id} name={server.name} />
        </TabPanel>
        <TabPanel id="history">
          <ServerHistory key={server.version} server={server} onRestored={() => void load()} />
        </TabPanel>
        <TabPanel id="tool-settings">
          <ToolSettingsPanel server={server} onSaved={() => void load()} />
        </TabPanel>
      </Tabs>
    </section>
  );
};
