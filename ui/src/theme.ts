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

export function applyTheme(choice: ThemeChoice) {
  const root = document.documentElement;
  if (choice === "system") root.removeAttribute("data-theme");
  else root.setAttribute("data-theme", choice);
  try {
    localStorage.setItem(KEY, choice);
  } catch {
    /* private mode: the choice lasts for this session */
  }
}

export function applyStoredTheme() {
  applyTheme(storedTheme());
}
