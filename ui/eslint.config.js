// @ts-check
// ESLint for the UI: `npm run lint` (zero warnings allowed). TypeScript files are linted with type
// information (typescript-eslint's type-checked rules, one TypeScript program per tsconfig), React
// components and hooks with the rules of hooks and complete effect dependencies.
import js from "@eslint/js";
import { defineConfig, globalIgnores } from "eslint/config";
import reactHooks from "eslint-plugin-react-hooks";
import globals from "globals";
import tseslint from "typescript-eslint";

export default defineConfig([
  // Build output, and the API types generated from the engine's Rust types by ts-rs (never edited here).
  globalIgnores(["dist/", "src/api/generated.ts"]),
  js.configs.recommended,
  tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
  },
  {
    rules: {
      // Unused names as tsc's noUnusedLocals/noUnusedParameters see them: `_name` is deliberate, and a
      // property taken out of an object to keep `...rest` is not an unused variable.
      "@typescript-eslint/no-unused-vars": [
        "error",
        { argsIgnorePattern: "^_", varsIgnorePattern: "^_", caughtErrorsIgnorePattern: "^_", ignoreRestSiblings: true },
      ],
    },
  },
  {
    files: ["src/**/*.{ts,tsx}"],
    languageOptions: { globals: globals.browser },
    plugins: { "react-hooks": reactHooks },
    rules: {
      "react-hooks/rules-of-hooks": "error",
      "react-hooks/exhaustive-deps": "error",
      // React ignores what an event handler returns, so `onClick={async () => …}` is fine: a rejection
      // there surfaces as an uncaught error, as a throw from a synchronous handler would (useAction
      // already turns engine errors into page state). Promises handed anywhere else (arguments,
      // conditions, object properties, spreads) are still checked.
      "@typescript-eslint/no-misused-promises": ["error", { checksVoidReturn: { attributes: false } }],
    },
  },
  {
    // Playwright tests, benchmarks and build configs run in Node.
    files: ["e2e/**/*.{ts,mjs}", "vite.config.ts"],
    languageOptions: { globals: globals.node },
  },
  {
    // Plain JavaScript (this file) is outside every tsconfig: no type information for it.
    files: ["**/*.{js,mjs}"],
    extends: [tseslint.configs.disableTypeChecked],
    languageOptions: { globals: globals.node },
  },
]);
