// Card library page (the code lives in ./cardLibrary).
export { CardsPage } from "./cardLibrary/CardsPage";
