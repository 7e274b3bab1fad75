import { chromium } from "../ui/node_modules/playwright-core/index.mjs";
import { readFileSync } from "fs";
const svg = readFileSync("../icons/icon.svg", "utf8");
const b = await chromium.launch({ executablePath: "/usr/bin/chromium", args: ["--no-sandbox", "--disable-gpu"] });
for (const s of [32, 64, 128, 256, 512]) {
  const p = await b.newPage({ viewport: { width: s, height: s } });
  await p.setContent(`<html><body style="margin:0;background:transparent">${svg.replace('width="512" height="512"', `width="${s}" height="${s}"`)}</body></html>`);
  await p.screenshot({ path: `../icons/${s}x${s}.png`, omitBackground: true });
  await p.close();
}
await b.close();
