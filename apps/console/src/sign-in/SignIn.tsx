import { useState } from "react";
import { Button, Form } from "react-aria-components";
import { createMcpsmClient } from "@mcpsm/client";
import { run } from "../api/client.js";
import type { Problem } from "../api/problem.js";
import { setToken } from "../api/session.js";
import { ProblemBanner } from "../components/ProblemBanner.js";
import { TextInput } from "../components/TextInput.js";
import { AuthorizationCodeSignIn } from "./AuthorizationCodeSignIn.js";
import { consoleSettings } from "./settings.js";

/** Sign-in: the configured authorization server (code + PKCE) when there is one, else a pasted token. */
export const SignIn = () => {
  const settings = consoleSettings();
  const [token, setValue] = useState("");
  const [problem, setProblem] = useState<Problem>();
  const [busy, setBusy] = useState(false);
  const submit = async () => {
    setBusy(true);
    // One cheap read proves the token before the console opens with it.
    const candidate = createMcpsmClient({ baseUrl: window.location.origin, token: token.trim() });
    const outcome = await run(candidate.GET("/servers"));
    setBusy(false);
    if (outcome.ok) setToken(token.trim());
    else setProblem(outcome.problem);
  };
  return (
    <main className="sign-in">
      <h1>MCP Server Management · Console</h1>
      {settings.oauth !== undefined && <AuthorizationCodeSignIn oauth={settings.oauth} />}
      <Form
        onSubmit={(e) => {
          e.preventDefault();
          void submit();
        }}
      >
        <p>
          {settings.oauth === undefined
            ? "Paste an access token for the management API (in dev-auth mode: ./run token --sub <tenant>)."
            : "Or paste an access token."}
        </p>
        <TextInput
          label="Access token"
          type="password"
          name="token"
          value={token}
          onChange={setValue}
          error={problem === undefined ? undefined : problem.detail}
          autoFocus
        />
        <ProblemBanner problem={problem} />
        <Button type="submit" className="button primary" isDisabled={token.trim() === "" || busy}>
          Sign in
        </Button>
      </Form>
    </main>
  );
};
