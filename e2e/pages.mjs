// Every page, checked by tools: signed out and signed in, at 375 and 1280 px, each page is run
// through axe-core (no critical or serious violation may remain), its HTML as the server sent
// it through html-validate (no error), checked for sideways scrolling at 375 px, and
// photographed into e2e/screenshots/pages (committed, and looked at by people).
// BASE_URL points at an offline server the Go test started on loopback. PAGES=/a,/b limits the
// run to those paths while fixing one page.
import assert from "node:assert/strict";
import { mkdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { HtmlValidate } from "html-validate";
import { launchChromium, step } from "./journey.mjs";

const base = process.env.BASE_URL;
const shots = (process.env.SHOTS || "e2e/screenshots") + "/pages";
mkdirSync(shots, { recursive: true });
const require = createRequire(import.meta.url);
const axeSource = readFileSync(require.resolve("axe-core/axe.min.js"), "utf8");
const only = process.env.PAGES ? process.env.PAGES.split(",") : null;
// The standard preset: what the HTML specification requires, not a house style.
const validator = new HtmlValidate({ extends: ["html-validate:standard"] });

const publicPages = ["/", "/markets", "/calculators/junk-silver", "/calculators/what-if", "/signal", "/intel", "/vault",
  "/dealers", "/docs/api", "/legal", "/login", "/signup", "/static/offline.html"];
const memberPages = ["/", "/markets", "/signal", "/dealers", "/holdings", "/holdings/new", "/holdings/sales", "/brief",
  "/portfolio/import", "/portfolio/scan", "/advisor", "/alerts", "/settings/account", "/settings/billing",
  "/settings/developer", "/tax", "/locations", "/performance"];

const browser = await launchChromium();
const problems = [];
const widths = [375, 1280];

// audit checks one page at both widths in ctx and records what is wrong.
async function audit(ctx, who, path) {
  if (only && !only.includes(path)) return;
  const page = await ctx.newPage();
  try {
    const raw = await page.request.get(base + path);
    assert.equal(raw.status(), 200, `${who} ${path}: HTTP ${raw.status()}`);
    const report = await validator.validateString(await raw.text(), path);
    for (const r of report.results) {
      for (const m of r.messages) {
        problems.push(`${who} ${path}: html ${m.ruleId}: ${m.message} (line ${m.line}: ${m.selector || ""})`);
      }
    }
    for (const width of widths) {
      await page.setViewportSize({ width, height: width === 375 ? 812 : 900 });
      await page.goto(base + path, { waitUntil: "load" });
      await page.waitForTimeout(300);
      await page.evaluate(axeSource);
      const res = await page.evaluate(() => globalThis.axe.run(document, { resultTypes: ["violations"] }));
      for (const v of res.violations) {
        if (v.impact !== "critical" && v.impact !== "serious") continue;
        const where = v.nodes.slice(0, 3).map((n) => n.target.join(" ")).join(" | ");
        problems.push(`${who} ${path} @${width}: axe ${v.impact} ${v.id} on ${v.nodes.length} element(s): ${where}`);
      }
      if (width === 375) {
        const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
        if (overflow > 0) problems.push(`${who} ${path} @375: scrolls sideways by ${overflow} px`);
      }
      // A lot's id is new each run: its pages are named "lot" so one screenshot is kept per page.
      const name = (path === "/" ? "home" : path.slice(1).replace(/\/h-[a-z0-9]+/gi, "/lot").replace(/[^a-z0-9]+/gi, "-")).replace(/-html$/, "");
      await page.screenshot({ path: `${shots}/${who}-${name}-${width}.jpg`, fullPage: true, type: "jpeg", quality: 70 });
    }
    console.log(`     checked ${who} ${path}`);
  } finally {
    await page.close();
  }
}

try {
  const visitor = await browser.newContext({ serviceWorkers: "block", bypassCSP: true });
  await visitor.route((url) => !url.href.startsWith(base), (route) => route.abort());
  const member = await browser.newContext({ serviceWorkers: "block", bypassCSP: true });
  await member.route((url) => !url.href.startsWith(base), (route) => route.abort());

  // Pages with a parameter: the first article and the first dealer product the lists link to.
  const found = async (ctx, list, prefix) => {
    const p = await ctx.newPage();
    await p.goto(base + list);
    const href = await p.locator(`main a[href^="${prefix}"]`).first().getAttribute("href", { timeout: 5000 }).catch(() => null);
    await p.close();
    return href;
  };

  await step("signed out: every page", async () => {
    const pages = [...publicPages];
    for (const [list, prefix] of [["/signal", "/signal/"], ["/dealers", "/dealers/"]]) {
      const href = await found(visitor, list, prefix);
      if (href) pages.push(href.split("#")[0]);
    }
    for (const path of pages) await audit(visitor, "visitor", path);
  });

  let lot = "";
  await step("sign up and record a holding", async () => {
    const page = await member.newPage();
    await page.goto(base + "/signup");
    await page.getByLabel("Email").fill(`pages${Date.now()}@example.com`);
    await page.getByLabel("Password").fill("correct horse battery");
    await page.getByRole("button", { name: "Create account" }).click();
    await page.waitForURL(base + "/");
    await page.goto(base + "/holdings/new");
    await page.selectOption("#f-metal", "silver");
    await page.fill("#f-product_name", "Silver Bar 10 oz");
    await page.fill("#f-quantity", "5");
    await page.fill("#f-weight", "10");
    await page.fill("#f-purchase_price", "310.00");
    await page.fill("#f-purchase_date", "2025-05-05");
    await page.click("#holding-form button[type=submit]");
    await page.waitForURL(/\/holdings\?saved=1/);
    lot = (await page.locator("li[id^=holding-]").first().getAttribute("id")).replace("holding-", "");
    await page.close();
  });

  await step("signed in: every page", async () => {
    const pages = [...memberPages, `/holdings/${lot}/edit`, `/holdings/${lot}/sell`];
    const article = await found(member, "/signal", "/signal/");
    if (article) pages.push(article.split("#")[0]);
    for (const path of pages) await audit(member, "member", path);
  });

  await step("no critical or serious axe violation, no HTML error, no sideways scrolling", async () => {
    if (problems.length) console.log(problems.join("\n"));
    assert.equal(problems.length, 0, `${problems.length} problem(s)`);
  });
} finally {
  await browser.close();
}
