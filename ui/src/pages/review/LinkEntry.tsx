// Entry points outside the owner's app: a reviewer's personal link (`/review/<token>`), and the
// page shown when someone opens a review server's address without a link.

import { lazy, Suspense, useEffect, useState } from "react";
import { api } from "../../api/client";
import { host, setReviewToken } from "../../api/transport";
import { Loading } from "../../components/Feedback";
import "./review.css";

// Read only when a reviewer's link is opened (the owner's app starts without it).
const Questionnaire = lazy(() => import("./Questionnaire").then((m) => ({ default: m.Questionnaire })));

export { reviewLinkToken } from "./logic";

/** Only the reviewer's questionnaire: no navigation, no owner pages. */
export function ReviewLinkApp({ token }: { token: string }) {
  // The token must be in place before the first call.
  useState(() => {
    setReviewToken(token);
    return token;
  });
  useEffect(() => {
    document.title = "Expert review · PSEBench Studio";
  }, []);
  return (
    <main id="main" className="rv-root">
      <Suspense fallback={<Loading />}>
        <Questionnaire token={token} mode="link" />
      </Suspense>
    </main>
  );
}

/**
 * True when this page is served by a review server (`psebench serve --review`) and was opened
 * without a personal link: the owner's API then answers "forbidden" to everything.
 */
export function useReviewServerWithoutLink(): boolean {
  const [forbidden, setForbidden] = useState(false);
  useEffect(() => {
    if (host() !== "http") return;
    let gone = false;
    api("store.info", {}).catch((e: { code?: string }) => {
      if (!gone && e?.code === "forbidden") setForbidden(true);
    });
    return () => {
      gone = true;
    };
  }, []);
  return forbidden;
}

export function ReviewServerNotice() {
  useEffect(() => {
    document.title = "Expert review · PSEBench Studio";
  }, []);
  return (
    <main id="main" className="rev-forbidden">
      <h1>Open your personal review link</h1>
      <p>
        This address serves an expert review. Each reviewer has a personal link, ending in <code>/review/</code> followed by a long code, sent to them by
        the person running the review. Open that link to see your cases.
      </p>
      <p className="muted">If you run this review: the links were printed when the review server started, and you can make new ones in the app under Expert review → Share links and packs, where Share serves them from the app.</p>
    </main>
  );
}
