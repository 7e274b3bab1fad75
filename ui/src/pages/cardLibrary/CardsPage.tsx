// The Card library: `#/cards` lists the library, `#/cards/<card_id>` shows one card.

import { useRoute } from "../../router";
import { CardList } from "./CardList";
import { CardView } from "./CardView";
import "./cards.css";

export function CardsPage() {
  const route = useRoute();
  const cardId = route.parts[1];
  return cardId ? <CardView key={cardId} cardId={cardId} /> : <CardList />;
}
