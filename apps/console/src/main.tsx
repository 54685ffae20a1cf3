import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import { App } from "./app/App.js";
// The style sheets in cascade order (later rules win over earlier ones of the same specificity).
import "./styles/frame.css";
import "./styles/controls.css";
import "./styles/components.css";
import "./styles/git-sync.css";
import "./styles/real-api-scale.css";
import "./styles/tool-settings.css";
import "./styles/response-filter.css";

createRoot(document.getElementById("root")!).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
