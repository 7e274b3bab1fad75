// The owner's key is taken out of the address before anything else reads it (see ownerKey.ts).
import "./api/ownerKey";
import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import { App } from "./App";
import { reviewLinkToken } from "./pages/review/LinkEntry";
import { prefetchHome } from "./pages/home/HomePage";
import { applyStoredTheme } from "./theme";
import { preferGenericFonts } from "./fonts";
import { parseHash, setRoutePreparer } from "./router";
import { preparePage } from "./pageFiles";
import "./styles.css";

applyStoredTheme();
preferGenericFonts();
// Home's summary of the store is asked for now, while the page's code starts.
if (!reviewLinkToken(window.location.pathname)) void prefetchHome();
setRoutePreparer(preparePage);
const root = document.getElementById("root");
const render = () => {
  if (root) createRoot(root).render(<StrictMode><App /></StrictMode>);
};
// Opened on another page than Home: that page's file first (so the first drawing is the page, not
// a spinner kept for React's minimum time).
const firstPage = preparePage(parseHash(window.location.hash));
if (firstPage) void firstPage.then(render);
else render();
