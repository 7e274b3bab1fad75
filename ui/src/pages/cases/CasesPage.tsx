// Cases: `#/cases` lists the benchmark cases, `#/cases/<case_id>` shows one, `#/cases?view=audit`
// is the label audit.

import { useRoute } from "../../router";
import "../cards/cards.css";
import { CaseList } from "./CaseList";
import { CaseView } from "./CaseView";
import { LabelAudit } from "./LabelAudit";
import "./cases.css";

export function CasesPage() {
  const route = useRoute();
  const caseId = route.parts[1];
  if (caseId) return <CaseView key={caseId} caseId={caseId} />;
  return route.query.get("view") === "audit" ? <LabelAudit /> : <CaseList />;
}
