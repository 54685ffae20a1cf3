import type { ServerToken } from "@mcpsm/client";
import { useCallback, useEffect, useState } from "react";
import { Button, Form } from "react-aria-components";
import { api, run } from "../api/client.js";
import { fieldError, type Problem } from "../api/problem.js";
import { useProblemFixes } from "../api/problem-fixes.js";
import { CopyButton } from "../components/CopyButton.js";
import { ProblemBanner } from "../components/ProblemBanner.js";
import { TextInput } from "../components/TextInput.js";
import { rememberToken } from "./minted-tokens.js";

/** A server's tokens: mint one (its value shown once, with a copy button), list and revoke. */
export const TokensPanel = (props: { readonly serverId: string; readonly onMinted: () => void }) => {
  const id = props.serverId;
  const [tokens, setTokens] = useState<ReadonlyArray<ServerToken>>([]);
  const [name, setName] = useState("");
  const [expiresAt, setExpiresAt] = useState("");
  const [value, setValue] = useState<string>();
  const [answered, setProblem] = useState<Problem>();
  const { problem, edited } = useProblemFixes(answered);

  const load = useCallback(async () => {
    const out = await run(api.GET("/servers/{id}/tokens", { params: { path: { id } } }));
    if (out.ok) setTokens(out.data.tokens);
    else setProblem(out.problem);
  }, [id]);
  useEffect(() => {
    void load();
  }, [load]);

  const mint = async () => {
    const out = await run(
      api.POST("/servers/{id}/tokens", {
        params: { path: { id } },
        body: { token: { name, ...(expiresAt === "" ? {} : { expiresAt }) } },
      }),
    );
    if (!out.ok) return setProblem(out.problem);
    setProblem(undefined);
    setName("");
    setExpiresAt("");
    const minted = out.data.token.value ?? "";
    setValue(minted);
    rememberToken(id, minted);
    props.onMinted();
    void load();
  };

  return (
    <section aria-labelledby="tokens-title">
      <h2 id="tokens-title">Tokens</h2>
      <Form
        className="form row"
        onSubmit={(e) => {
          e.preventDefault();
          void mint();
        }}
      >
        <TextInput
          label="Token name"
          value={name}
          onChange={(v) => {
            edited("token.name");
            setName(v);
          }}
          error={fieldError(problem, "token.name")}
          isRequired
        />
        <TextInput
          label="Expires at (optional, RFC 3339)"
          value={expiresAt}
          onChange={(v) => {
            edited("token.expiresAt");
            setExpiresAt(v);
          }}
          error={fieldError(problem, "token.expiresAt")}
          description="e.g. 2030-01-01T00:00:00Z; empty: never"
        />
        <Button type="submit" className="button primary">
          Mint token
        </Button>
      </Form>
      <ProblemBanner problem={problem} unplaced={(problem?.errors ?? []).filter((e) => !e.path.startsWith("token."))} />
      {value !== undefined && (
        <div className="once" role="status">
          <p>
            <strong>Copy this token now: it is shown once.</strong> The service keeps only its hash.
          </p>
          <code className="secret" data-testid="minted-token">
            {value}
          </code>{" "}
          <CopyButton text={value} label="Copy token" />
        </div>
      )}
      <table className="table">
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Created</th>
            <th scope="col">Expires</th>
            <th scope="col">
              <span className="sr-only">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {tokens.map((t) => (
            <tr key={t.id}>
              <td>{t.name}</td>
              <td>{new Date(t.createdAt).toLocaleString()}</td>
              <td>{t.expiresAt === undefined ? "never" : new Date(t.expiresAt).toLocaleString()}</td>
              <td>
                <Button
                  className="button small danger"
                  aria-label={`Revoke ${t.name}`}
                  onPress={async () => {
                    const out = await run(
                      api.DELETE("/servers/{id}/tokens/{tokenID}", { params: { path: { id, tokenID: t.id } } }),
                    );
                    if (out.ok) void load();
                    else setProblem(out.problem);
                  }}
                >
                  Revoke
                </Button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
};
