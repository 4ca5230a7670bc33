import "./askFirst";
import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import { App } from "./App";
import "./styles/index.css";
import { applyCachedTheme } from "./shell/theme";
import { markStart } from "./lib/startSteps";

// Every module fetched, parsed and run: the page's script begins.
markStart("script running");

// Before the first paint, so it is already in the theme last chosen.
applyCachedTheme();

const root = createRoot(document.getElementById("root")!);
markStart("root created");
root.render(
  <StrictMode>
    <App />
  </StrictMode>,
);
