// The app shell: navigation in workflow order, the page for the current route, toasts.

import { ComponentType, Suspense, useEffect } from "react";
import { Loading, Toasts } from "./components/Feedback";
import { useRoute } from "./router";
import { pageFromFile } from "./pageFiles";
import { HomePage } from "./pages/home/HomePage";
import { ReviewLinkApp, reviewLinkToken, ReviewServerNotice, useReviewServerWithoutLink } from "./pages/review/LinkEntry";
import { OwnerKeyNotice, useOwnerKeyMissing } from "./components/OwnerKeyNotice";

// Home is in the first file the window loads; every other page is a file of its own, read the
// first time it is opened: the window shows sooner with less code to read first, and pages never
// opened take no memory. The address changes only once the page's file is here (see
// `preparePage`), so a page opens at once instead of flashing a spinner and React's minimum
// time for showing one.
const PolicyPage = pageFromFile("policy", () => import("./pages/policy/PolicyPage").then((m) => m.PolicyPage));
const CardsPage = pageFromFile("cards", () => import("./pages/cards/CardsPage").then((m) => m.CardsPage));
const AnchorsPage = pageFromFile("anchors", () => import("./pages/anchors/AnchorsPage").then((m) => m.AnchorsPage));
const GeneratePage = pageFromFile("generate", () => import("./pages/generate/GeneratePage").then((m) => m.GeneratePage));
const CasesPage = pageFromFile("cases", () => import("./pages/cases/CasesPage").then((m) => m.CasesPage));
const EvaluatePage = pageFromFile("evaluate", () => import("./pages/evaluate/EvaluatePage").then((m) => m.EvaluatePage));
const ResultsPage = pageFromFile("results", () => import("./pages/results/ResultsPage").then((m) => m.ResultsPage));
const ReviewPage = pageFromFile("review", () => import("./pages/review/ReviewPage").then((m) => m.ReviewPage));
const SettingsPage = pageFromFile("settings", () => import("./pages/settings/SettingsPage").then((m) => m.SettingsPage));

type NavItem = { id: string; label: string; step?: number; page: ComponentType; title: string };

export const NAV: NavItem[] = [
  { id: "", label: "Home", page: HomePage, title: "Home" },
  { id: "policy", label: "Policy", step: 1, page: PolicyPage, title: "Policy" },
  { id: "cards", label: "Card library", step: 2, page: CardsPage, title: "Card library" },
  { id: "anchors", label: "Anchors", step: 3, page: AnchorsPage, title: "Anchors" },
  { id: "generate", label: "Generate cases", step: 4, page: GeneratePage, title: "Generate cases" },
  { id: "cases", label: "Cases", step: 5, page: CasesPage, title: "Cases" },
  { id: "evaluate", label: "Evaluate", step: 6, page: EvaluatePage, title: "Evaluate" },
  { id: "results", label: "Results", step: 7, page: ResultsPage, title: "Results" },
  { id: "review", label: "Expert review", step: 8, page: ReviewPage, title: "Expert review" },
  { id: "settings", label: "Settings", page: SettingsPage, title: "Settings" },
];

export function App() {
  // A browser that did not come through `psebench serve`'s printed link gets only a notice.
  const keyMissing = useOwnerKeyMissing();
  // A reviewer's personal link (`/review/<token>`) shows only the questionnaire.
  const token = typeof window !== "undefined" ? reviewLinkToken(window.location.pathname) : null;
  if (keyMissing) return <OwnerKeyNotice />;
  return token ? <ReviewLinkApp token={token} /> : <Shell />;
}

function Shell() {
  const route = useRoute();
  const reviewServer = useReviewServerWithoutLink();
  const section = route.parts[0] ?? "";
  const item = NAV.find((n) => n.id === section) ?? NAV[0];
  const Page = item.page;
  useEffect(() => {
    document.title = item.id ? `${item.title} · PSEBench Studio` : "PSEBench Studio";
  }, [item]);
  useEffect(() => {
    document.getElementById("main")?.scrollTo({ top: 0 });
  }, [route.path]);
  if (reviewServer) return <ReviewServerNotice />;
  return (
    <div className="shell">
      <a className="skip-link" href="#main" onClick={(e) => { e.preventDefault(); document.getElementById("main")?.focus(); }}>
        Skip to content
      </a>
      <nav className="sidebar" aria-label="Main">
        <div className="brand">
          <img src="/icon.png" alt="" />
          <span>PSEBench Studio</span>
        </div>
        <div className="nav">
          {NAV.filter((n) => n.id === "").map((n) => (
            <a key={n.id} href="#/" className={item.id === n.id ? "active" : ""} aria-current={item.id === n.id ? "page" : undefined}>
              <span className="step" aria-hidden>⌂</span>
              {n.label}
            </a>
          ))}
          <div className="nav-group">Workflow</div>
          {NAV.filter((n) => n.step).map((n) => (
            <a key={n.id} href={`#/${n.id}`} className={item.id === n.id ? "active" : ""} aria-current={item.id === n.id ? "page" : undefined}>
              <span className="step" aria-hidden>{n.step}</span>
              {n.label}
            </a>
          ))}
          <div className="nav-group">Setup</div>
          {NAV.filter((n) => n.id === "settings").map((n) => (
            <a key={n.id} href="#/settings" className={item.id === n.id ? "active" : ""} aria-current={item.id === n.id ? "page" : undefined}>
              <span className="step" aria-hidden>⚙</span>
              {n.label}
            </a>
          ))}
        </div>
        <div className="sidebar-foot">Everything stays on this computer unless you run a remote model.</div>
      </nav>
      <main id="main" tabIndex={-1}>
        <div className="page">
          <Suspense fallback={<Loading />}>
            <Page />
          </Suspense>
        </div>
      </main>
      <Toasts />
    </div>
  );
}
