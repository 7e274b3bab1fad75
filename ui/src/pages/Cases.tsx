// Cases page (the code lives in ./caseBrowser).
export { CasesPage } from "./caseBrowser/CasesPage";
