// Screenshot helper for looking at pages by hand: node e2e/shoot.mjs URL OUT.png [width] [dark]
import { chromium } from "playwright-core";
const [url, out, width = "1280", dark = ""] = process.argv.slice(2);
const browser = await chromium.launch({ executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
  args: ["--no-sandbox", "--headless", "--disable-gpu", "--disable-background-networking", "--disable-component-update"] });
const page = await (await browser.newContext({ viewport: { width: Number(width), height: 900 }, colorScheme: dark ? "dark" : "light" })).newPage();
const errors = [];
page.on("console", (m) => { if (m.type() === "error") errors.push(m.text()); });
await page.goto(url, { waitUntil: "load" });
await page.waitForTimeout(500);
await page.screenshot({ path: out, fullPage: true });
if (errors.length) console.log("console errors:\n" + errors.join("\n"));
await browser.close();
