import { useEffect, useState } from "react";
import { Button, ComboBox, Form, Input, Label, ListBox, ListBoxItem, Popover } from "react-aria-components";
import { ProblemBanner } from "../components/ProblemBanner.js";
import type { Problem } from "../api/problem.js";
import { Busy } from "../components/Busy.js";
import { type FormValue, formArguments, type JsonSchema, SchemaForm } from "../components/SchemaForm.js";
import { TextInput } from "../components/TextInput.js";
import { Markdown } from "../markdown/Markdown.js";
import { type McpCallTrace, type McpTool, mcpSession } from "../mcp/mcp-session.js";
import { CallTraceView } from "./CallTraceView.js";
import { consoleCredential } from "./console-credential.js";
import { mintedToken } from "./minted-tokens.js";

/**
 * "Try a tool": connects to the server's real MCP endpoint with the console's short-lived credential (or a
 * pasted server token), lists its tools, fills a form built from a tool's schema, calls it and shows the
 * request sent, the status, the latency, the result's tokens and the pretty-printed answer.
 */
export const TryTool = (props: { readonly serverId: string }) => {
  const [pasted, setPasted] = useState(mintedToken(props.serverId) ?? "");
  const [session, setSession] = useState<ReturnType<typeof mcpSession>>();
  const [tools, setTools] = useState<ReadonlyArray<McpTool>>();
  const [selected, setSelected] = useState<string>();
  const [values, setValues] = useState<Record<string, FormValue>>({});
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [trace, setTrace] = useState<McpCallTrace>();
  const [failure, setFailure] = useState<string>();
  const [problem, setProblem] = useState<Problem>();
  const [busy, setBusy] = useState<string>();

  const connect = async (token: string) => {
    setBusy("Connecting to the MCP endpoint");
    setFailure(undefined);
    const s = mcpSession(props.serverId, token);
    try {
      setTools(await s.listTools());
      setSession(s);
    } catch (e) {
      setFailure(e instanceof Error ? e.message : String(e));
    }
    setBusy(undefined);
  };
  // Signed in, the page connects by itself with the console credential.
  // biome-ignore lint/correctness/useExhaustiveDependencies: once per server
  useEffect(() => {
    void (async () => {
      setBusy("Getting a console credential");
      const credential = await consoleCredential(props.serverId);
      setBusy(undefined);
      if (credential.ok) await connect(credential.value);
      else setProblem(credential.problem);
    })();
  }, [props.serverId]);

  const tool = tools?.find((t) => t.name === selected);
  const call = async () => {
    if (session === undefined || tool === undefined) return;
    const { args, errors: wrong } = formArguments(tool.inputSchema as JsonSchema, values);
    setErrors(wrong);
    if (Object.keys(wrong).length > 0) return;
    setBusy(`Calling ${tool.name}`);
    setFailure(undefined);
    setTrace(undefined);
    try {
      setTrace(await session.traceCall(tool.name, args));
    } catch (e) {
      setFailure(e instanceof Error ? e.message : String(e));
    }
    setBusy(undefined);
  };

  return (
    <section aria-labelledby="try-title">
      <h2 id="try-title">Try a tool</h2>
      <p className="muted">
        Signed in, the console calls <code>/mcp/{props.serverId}</code> with a server token of its own that expires
        within 15 minutes and is revoked when you leave the page. To try another token, paste it:
      </p>
      <Form
        className="form row"
        onSubmit={(e) => {
          e.preventDefault();
          void connect(pasted.trim());
        }}
      >
        <TextInput
          label="Server token"
          type="password"
          value={pasted}
          onChange={setPasted}
          description="Optional: a token of this server (tokens minted in this tab are filled in)."
        />
        <Button type="submit" className="button" isDisabled={pasted.trim() === ""}>
          Connect with this token
        </Button>
      </Form>
      <ProblemBanner problem={problem} />
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
          <ComboBox
            className="field"
            selectedKey={selected ?? null}
            onSelectionChange={(k) => {
              if (k === null) return;
              setSelected(String(k));
              setValues({});
              setErrors({});
              setTrace(undefined);
            }}
            defaultItems={tools.map((t) => ({ id: t.name, ...t }))}
            menuTrigger="focus"
          >
            <Label>Tool ({tools.length})</Label>
            <div className="combo">
              <Input className="combo-input" placeholder="type to filter by name" />
              <Button className="button small" aria-label="Show the tools">
                ▾
              </Button>
            </div>
            <Popover>
              <ListBox className="listbox">
                {(t: McpTool & { id: string }) => (
                  <ListBoxItem id={t.id} textValue={t.name}>
                    {t.name}
                    {t.title !== undefined && t.title !== "" && <span className="muted"> {t.title}</span>}
                  </ListBoxItem>
                )}
              </ListBox>
            </Popover>
          </ComboBox>
          {tool !== undefined && (
            <>
              <Markdown text={tool.description ?? ""} className="muted" />
              <SchemaForm
                schema={tool.inputSchema as JsonSchema}
                values={values}
                errors={errors}
                onChange={(name, value) => {
                  setValues((old) => ({ ...old, [name]: value }));
                  setErrors(({ [name]: _fixed, ...rest }) => rest);
                }}
              />
              <Button type="submit" className="button primary" isDisabled={busy !== undefined}>
                Call {tool.name}
              </Button>
            </>
          )}
        </Form>
      )}
      {trace !== undefined && <CallTraceView trace={trace} />}
    </section>
  );
};
