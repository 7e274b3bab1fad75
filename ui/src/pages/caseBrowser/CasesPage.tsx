// Cases: `#/cases` lists the benchmark cases, `#/cases/<case_id>` shows one.

import { useRoute } from "../../router";
import "../cardLibrary/cards.css";
import { CaseList } from "./CaseList";
import { CaseView } from "./CaseView";
import "./cases.css";

export function CasesPage() {
  const route = useRoute();
  const caseId = route.parts[1];
  return caseId ? <CaseView key={caseId} caseId={caseId} /> : <CaseList />;
}
