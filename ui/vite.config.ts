import { defineConfig } from "vitest/config";

// No React plugin: JSX is compiled by Vite's built-in transform (tsconfig "jsx": "react-jsx").
// `npm run dev` proxies the API to a running `psebench serve --port 8765`.
export default defineConfig({
  base: "/",
  build: { outDir: "dist", emptyOutDir: true, target: "es2022", chunkSizeWarningLimit: 1500 },
  server: { port: 5173, proxy: { "/api": "http://127.0.0.1:8765" } },
  test: { environment: "jsdom", include: ["src/**/*.test.ts", "src/**/*.test.tsx"] },
});
