// The console's settings, written by the service into <meta name="mcpsm-console" content="{json}"> of the
// page it serves (no inline script: the page's CSP forbids it). `oauth` is present when the service is
// configured with an authorization server and a public client for the console.

export interface OAuthSettings {
  readonly authorizationEndpoint: string;
  readonly tokenEndpoint: string;
  readonly clientId: string;
  readonly scope: string;
  readonly audience?: string;
}

export interface ConsoleSettings {
  readonly oauth?: OAuthSettings;
}

/** The settings of this page (empty when absent or unreadable). */
export const consoleSettings = (): ConsoleSettings => {
  const content = document.querySelector('meta[name="mcpsm-console"]')?.getAttribute("content");
  if (content === null || content === undefined || content === "") return {};
  try {
    return JSON.parse(content) as ConsoleSettings;
  } catch {
    return {};
  }
};
