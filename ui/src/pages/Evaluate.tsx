// TEMPORARY: replaced by the real page before the app issue is closed.
import { EmptyState } from "../components/Feedback";
import { PageHeader } from "../components/Layout";

export function EvaluatePage() {
  return (
    <>
      <PageHeader title="Evaluate" />
      <EmptyState title="This page is being built." />
    </>
  );
}
