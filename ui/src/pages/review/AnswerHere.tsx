// Answering inside the app: the owner's computer asks the engine for a token for this reviewer
// (kept in the engine's memory only) and shows the same questionnaire as a personal link.

import { useEffect, useState } from "react";
import { api, EngineError } from "../../api/client";
import { ErrorBanner, Loading } from "../../components/Feedback";
import { href } from "../../router";
import { Questionnaire } from "./Questionnaire";

export function AnswerHere({ sessionId, reviewer }: { sessionId: string; reviewer: string | null }) {
  const [token, setToken] = useState<string | null>(null);
  const [error, setError] = useState<EngineError | null>(null);
  useEffect(() => {
    setToken(null);
    setError(null);
    if (!reviewer) return;
    let gone = false;
    api("review.local_token", { session: sessionId, reviewer })
      .then((t) => !gone && setToken(t.token))
      .catch((e: EngineError) => !gone && setError(e));
    return () => {
      gone = true;
    };
  }, [sessionId, reviewer]);
  const back = (
    <a className="btn btn-small" href={href("/review", sessionId, { tab: "answer" })}>
      Leave
    </a>
  );
  if (!reviewer || error)
    return (
      <>
        <ErrorBanner error={error ?? undefined} title="The questionnaire could not be opened." />
        {!reviewer && <p>Choose a reviewer first.</p>}
        {back}
      </>
    );
  if (!token) return <Loading label="Opening the questionnaire…" />;
  // A new token (another reviewer) gets a fresh questionnaire: nothing is carried over.
  return <Questionnaire key={token} token={token} mode="app" exit={back} />;
}
