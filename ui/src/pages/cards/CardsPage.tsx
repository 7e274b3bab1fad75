// The Card library: `#/cards` lists the library, `#/cards?view=author` is the authoring workspace,
// `#/cards/<card_id>` shows one card.

import { useRoute } from "../../router";
import { AuthoringWorkspace } from "./authoring/AuthoringWorkspace";
import { CardList } from "./CardList";
import { CardView } from "./CardView";
import "./cards.css";

export function CardsPage() {
  const route = useRoute();
  const cardId = route.parts[1];
  if (cardId) return <CardView key={cardId} cardId={cardId} />;
  return route.query.get("view") === "author" ? <AuthoringWorkspace /> : <CardList />;
}
