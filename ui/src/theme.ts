// Light and dark themes: follow the OS by default; the user's choice is remembered.

export type ThemeChoice = "system" | "light" | "dark";
const KEY = "psebench.theme";

export function storedTheme(): ThemeChoice {
  try {
    const v = localStorage.getItem(KEY);
    return v === "light" || v === "dark" ? v : "system";
  } catch {
    return "system";
  }
}

const systemDark = () => typeof window !== "undefined" && !!window.matchMedia?.("(prefers-color-scheme: dark)").matches;
let followSystem = false;

function paint(choice: ThemeChoice) {
  const dark = choice === "dark" || (choice === "system" && systemDark());
  document.documentElement.setAttribute("data-theme", dark ? "dark" : "light");
}

export function applyTheme(choice: ThemeChoice) {
  paint(choice);
  if (choice === "system" && !followSystem && typeof window !== "undefined" && window.matchMedia) {
    followSystem = true;
    window.matchMedia("(prefers-color-scheme: dark)").addEventListener("change", () => {
      if (storedTheme() === "system") paint("system");
    });
  }
  try {
    localStorage.setItem(KEY, choice);
  } catch {
    /* private mode: the choice lasts for this session */
  }
}

export function applyStoredTheme() {
  applyTheme(storedTheme());
}
