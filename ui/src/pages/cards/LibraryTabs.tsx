// The two faces of the card library: the library itself and the authoring workspace.

import { Tabs } from "../../components/Layout";
import { href, navigate } from "../../router";

export function LibraryTabs({ active }: { active: "library" | "author" }) {
  return (
    <Tabs
      label="Card library views"
      active={active}
      onChange={(t) => navigate(t === "author" ? href("/cards", { view: "author" }) : href("/cards"))}
      tabs={[
        { id: "library", label: "Library" },
        { id: "author", label: "Author from policy" },
      ]}
    />
  );
}
