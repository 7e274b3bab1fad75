import { defineConfig } from "vitest/config";

// No React plugin: JSX is compiled by Vite's built-in transform (tsconfig "jsx": "react-jsx").
// `npm run dev` proxies the API to a running `psebench serve --port 8765 --token-file FILE`, sending
// the key of that launch (PSEBENCH_TOKEN=$(cat FILE) npm run dev).
const token = process.env.PSEBENCH_TOKEN;
export default defineConfig({
  base: "/",
  build: { outDir: "dist", emptyOutDir: true, target: "es2022", chunkSizeWarningLimit: 1500 },
  server: {
    port: 5173,
    proxy: { "/api": { target: "http://127.0.0.1:8765", headers: token ? { authorization: `Bearer ${token}` } : {} } },
  },
  test: { environment: "jsdom", include: ["src/**/*.test.ts", "src/**/*.test.tsx"] },
});
