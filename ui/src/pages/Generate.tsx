// TEMPORARY: replaced by the real page before the app issue is closed.
import { EmptyState } from "../components/Feedback";
import { PageHeader } from "../components/Layout";

export function GeneratePage() {
  return (
    <>
      <PageHeader title="Generate" />
      <EmptyState title="This page is being built." />
    </>
  );
}
