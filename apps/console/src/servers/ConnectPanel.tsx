import { Tab, TabList, TabPanel, Tabs } from "react-aria-components";
import { CopyButton } from "../components/CopyButton.js";
import { clientConfigs } from "./client-configs.js";
import { mintedToken } from "./minted-tokens.js";

/** Ready-to-paste client configurations, with the token minted in this tab when there is one. */
export const ConnectPanel = (props: { readonly serverId: string; readonly name: string }) => {
  const url = `${window.location.origin}/mcp/${props.serverId}`;
  const token = mintedToken(props.serverId);
  const configs = clientConfigs(props.name, url, token ?? "<server token>");
  return (
    <section aria-labelledby="connect-title">
      <h2 id="connect-title">Connect a client</h2>
      <p>
        MCP endpoint: <code data-testid="mcp-url">{url}</code> <CopyButton text={url} label="Copy URL" />
      </p>
      {token === undefined && <p className="muted">Mint a token (Tokens tab) to have it filled in below.</p>}
      <Tabs>
        <TabList aria-label="Client" className="tabs">
          {configs.map((c) => (
            <Tab key={c.id} id={c.id}>
              {c.client}
            </Tab>
          ))}
        </TabList>
        {configs.map((c) => (
          <TabPanel key={c.id} id={c.id}>
            <p className="muted">{c.where}</p>
            <pre className="config" data-testid={`config-${c.id}`}>
              {c.text}
            </pre>
            <CopyButton text={c.text} label={`Copy ${c.client} configuration`} />
          </TabPanel>
        ))}
      </Tabs>
    </section>
  );
};
