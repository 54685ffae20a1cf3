import { useState } from "react";
import { Button, Form, Label, ListBox, ListBoxItem, Popover, Select, SelectValue } from "react-aria-components";
import { Busy } from "../components/Busy.js";
import { formArguments, type JsonSchema, SchemaForm } from "../components/SchemaForm.js";
import { TextInput } from "../components/TextInput.js";
import { type McpCallResult, type McpTool, mcpSession } from "../mcp/mcp-session.js";
import { mintedToken } from "./minted-tokens.js";

/** "Try a tool": list the server's tools over its real MCP endpoint, fill a form built from a tool's schema, call it. */
export const TryTool = (props: { readonly serverId: string }) => {
  const [token, setToken] = useState(mintedToken(props.serverId) ?? "");
  const [session, setSession] = useState<ReturnType<typeof mcpSession>>();
  const [tools, setTools] = useState<ReadonlyArray<McpTool>>();
  const [selected, setSelected] = useState<string>();
  const [values, setValues] = useState<Record<string, string | boolean>>({});
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [result, setResult] = useState<McpCallResult>();
  const [failure, setFailure] = useState<string>();
  const [busy, setBusy] = useState<string>();

  const connect = async () => {
    setBusy("Connecting to the MCP endpoint");
    setFailure(undefined);
    const s = mcpSession(props.serverId, token.trim());
    try {
      setTools(await s.listTools());
      setSession(s);
    } catch (e) {
      setFailure(e instanceof Error ? e.message : String(e));
    }
    setBusy(undefined);
  };
  const tool = tools?.find((t) => t.name === selected);
  const call = async () => {
    if (session === undefined || tool === undefined) return;
    const { args, errors: wrong } = formArguments(tool.inputSchema as JsonSchema, values);
    setErrors(wrong);
    if (Object.keys(wrong).length > 0) return;
    setBusy(`Calling ${tool.name}`);
    setFailure(undefined);
    setResult(undefined);
    try {
      setResult(await session.callTool(tool.name, args));
    } catch (e) {
      setFailure(e instanceof Error ? e.message : String(e));
    }
    setBusy(undefined);
  };

  return (
    <section aria-labelledby="try-title">
      <h2 id="try-title">Try a tool</h2>
      <Form
        className="form row"
        onSubmit={(e) => {
          e.preventDefault();
          void connect();
        }}
      >
        <TextInput
          label="Server token"
          type="password"
          value={token}
          onChange={setToken}
          description="A token of this server (minted tokens of this tab are filled in)."
        />
        <Button type="submit" className="button" isDisabled={token.trim() === ""}>
          Connect
        </Button>
      </Form>
      {busy !== undefined && <Busy label={busy} />}
      {failure !== undefined && (
        <p role="alert" className="problem">
          {failure}
        </p>
      )}
      {tools !== undefined && (
        <Form
          className="form"
          onSubmit={(e) => {
            e.preventDefault();
            void call();
          }}
        >
          <Select
            className="field"
            selectedKey={selected ?? null}
            onSelectionChange={(k) => {
              setSelected(String(k));
              setValues({});
              setErrors({});
              setResult(undefined);
            }}
            placeholder="Choose a tool"
          >
            <Label>Tool ({tools.length})</Label>
            <Button className="button select">
              <SelectValue />
            </Button>
            <Popover>
              <ListBox className="listbox">
                {tools.map((t) => (
                  <ListBoxItem key={t.name} id={t.name}>
                    {t.name}
                  </ListBoxItem>
                ))}
              </ListBox>
            </Popover>
          </Select>
          {tool !== undefined && (
            <>
              <p className="muted">{tool.description}</p>
              <SchemaForm
                schema={tool.inputSchema as JsonSchema}
                values={values}
                errors={errors}
                onChange={(name, value) => setValues((old) => ({ ...old, [name]: value }))}
              />
              <Button type="submit" className="button primary" isDisabled={busy !== undefined}>
                Call {tool.name}
              </Button>
            </>
          )}
        </Form>
      )}
      {result !== undefined && (
        <div className={result.isError === true ? "result problem" : "result"} role="status" aria-label="Tool result">
          <h3>{result.isError === true ? "The tool answered an error" : "Result"}</h3>
          {result.content.map((c, i) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: content blocks have no identity
            <pre key={i} className="config" data-testid="tool-result">
              {c.type === "text" ? c.text : JSON.stringify(c, null, 2)}
            </pre>
          ))}
        </div>
      )}
    </section>
  );
};
