// Generate cases page: see ./generate/GeneratePage.tsx.
export { GeneratePage } from "./generate/GeneratePage";
