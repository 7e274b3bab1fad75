// Anchors page: see ./anchors/AnchorsPage.tsx.
export { AnchorsPage } from "./anchors/AnchorsPage";
