import { releaseConsoleCredentials } from "../servers/console-credential.js";
import { lazy, Suspense } from "react";
import { Button } from "react-aria-components";
import { setToken, tokenClaims, useSession } from "../api/session.js";
import { ApprovalsPage } from "../approvals/ApprovalsPage.js";
import { AuditTrail } from "../audit/AuditTrail.js";
import { Busy } from "../components/Busy.js";
import { ImportPage } from "../providers/ImportPage.js";
import { ProvidersPage } from "../providers/ProvidersPage.js";
import { GitConnectionsPage } from "../extensions/GitSync.js";
import { NewServerPage, ServerPage, ServersPage } from "../servers/ServerPages.js";
import { ServerImportPage } from "../servers/ServerTransfer.js";
import { SignIn } from "../sign-in/SignIn.js";
import { UsagePage } from "../usage/UsagePages.js";
import { VariablesPage } from "../variables/VariablesPage.js";
import { useRoute } from "./route.js";

// The provider pages hold the JSON editor (CodeMirror, about half of the bundle): loaded when first opened.
const NewProviderPage = lazy(() =>
  import("../providers/ProviderPages.js").then((m) => ({ default: m.NewProviderPage })),
);
const ProviderPage = lazy(() => import("../providers/ProviderPages.js").then((m) => ({ default: m.ProviderPage })));

const SECTIONS = [
  { path: "servers", label: "Servers" },
  { path: "providers", label: "Providers" },
  { path: "variables", label: "Variables" },
  { path: "git-connections", label: "Git connections" },
  { path: "approvals", label: "Approvals" },
  { path: "usage", label: "Usage" },
  { path: "audit", label: "Audit" },
] as const;

/** The page for a route. */
const View = (props: { readonly route: ReadonlyArray<string> }) => {
  const [section, id] = props.route;
  switch (section) {
    case "providers":
      if (id === "new") return <NewProviderPage />;
      if (id === "import") return <ImportPage />;
      return id === undefined ? <ProvidersPage /> : <ProviderPage key={id} id={id} />;
    case "variables":
      return <VariablesPage />;
    case "git-connections":
      return <GitConnectionsPage />;
    case "approvals":
      return <ApprovalsPage />;
    case "usage":
      return <UsagePage />;
    case "audit":
      return (
        <section>
          <h1>Audit</h1>
          <AuditTrail />
        </section>
      );
    default:
      if (section === "servers" && id === "new") return <NewServerPage />;
      if (section === "servers" && id === "import") return <ServerImportPage />;
      return section === "servers" && id !== undefined ? <ServerPage key={id} id={id} /> : <ServersPage />;
  }
};

/** The console: sign-in, then a navigation bar and the current page. */
export const App = () => {
  const token = useSession();
  const route = useRoute();
  if (token === "") return <SignIn />;
  const who = tokenClaims(token).sub;
  const current = route[0] ?? "servers";
  return (
    <>
      <a className="skip" href="#main">
        Skip to content
      </a>
      <header className="bar">
        <span className="brand">MCP Console</span>
        <nav aria-label="Sections">
          <ul>
            {SECTIONS.map((s) => (
              <li key={s.path}>
                <a href={`#/${s.path}`} aria-current={current === s.path ? "page" : undefined}>
                  {s.label}
                </a>
              </li>
            ))}
            <li>
              <a href="/docs">API reference</a>
            </li>
          </ul>
        </nav>
        <span className="who">
          {who !== undefined && <span className="muted">{who}</span>}{" "}
          <Button
            className="button small"
            onPress={() => {
              releaseConsoleCredentials();
              setToken("");
            }}
          >
            Sign out
          </Button>
        </span>
      </header>
      <main id="main" tabIndex={-1}>
        <Suspense fallback={<Busy label="Loading" />}>
          <View route={route} />
        </Suspense>
      </main>
    </>
  );
};
