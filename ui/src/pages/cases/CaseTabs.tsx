// The two faces of the Cases page: the case list and the label audit.

import { Tabs } from "../../components/Layout";
import { href, navigate } from "../../router";

export function CaseTabs({ active }: { active: "cases" | "audit" }) {
  return (
    <Tabs
      label="Cases views"
      active={active}
      onChange={(t) => navigate(t === "audit" ? href("/cases", { view: "audit" }) : href("/cases"))}
      tabs={[
        { id: "cases", label: "Cases" },
        { id: "audit", label: "Label audit" },
      ]}
    />
  );
}
