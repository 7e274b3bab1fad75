// Expert review: the page lives in ./review/ (owner pages, questionnaire, helpers).
export { ReviewPage } from "./review/Owner";
