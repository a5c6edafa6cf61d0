// Browser journey of the dealer-price page, driven by playwright-core against Debian's Chromium.
// BASE_URL points at an offline server the Go test started on loopback; SHOTS is where
// screenshots go. Nothing here leaves loopback: the click-through is checked by its redirect.
import { chromium } from "playwright-core";
import assert from "node:assert/strict";
import { mkdirSync } from "node:fs";

const base = process.env.BASE_URL;
const shots = process.env.SHOTS || "e2e/screenshots";
mkdirSync(shots, { recursive: true });

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
  args: ["--no-sandbox", "--headless", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync"],
});
const step = async (name, fn) => {
  try {
    await fn();
    console.log("ok   " + name);
  } catch (e) {
    console.log("FAIL " + name + "\n" + (e.stack || e));
    throw e;
  }
};

try {
  const ctx = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  // Any request off loopback would be a bug (a redirect followed, an external asset).
  await ctx.route((url) => !url.href.startsWith(base), (route) => { console.log("blocked " + route.request().url()); return route.abort(); });
  const page = await ctx.newPage();
  const errors = [];
  page.on("console", (m) => { if (m.type() === "error") errors.push(m.text()); });

  await step("offline /dealers shows labelled demo quotes", async () => {
    await page.goto(base + "/dealers?metal=silver&weight=1");
    await page.getByRole("heading", { name: "Dealer prices" }).waitFor();
    assert.ok(await page.locator("#demo-notice").isVisible(), "demo notice shown");
    const sections = page.locator("#dealer-results > section");
    assert.equal(await sections.count(), 8, "eight 1 oz silver products");
    const rows = page.locator("tbody tr");
    const n = await rows.count();
    assert.ok(n >= 24, `rows: ${n}`);
    for (let i = 0; i < n; i++) {
      assert.ok((await rows.nth(i).locator("th").innerText()).toUpperCase().includes("DEMO"), `row ${i} labelled demo`);
    }
    assert.match(await page.locator("#dealer-spot").innerText(), /last known price, from \d{1,2} \w{3} \d{4}; not live/);
    // The best row is highlighted and its premium bar drawn.
    const best = page.locator("#product-silver-american-eagle-1oz tbody tr").first();
    assert.match(await best.innerText(), /Best/);
    assert.equal(await best.locator("svg rect").count(), 2);
    await page.screenshot({ path: `${shots}/dealers-1280-light.png`, fullPage: false });
  });

  await step("columns sort and filters narrow", async () => {
    const table = page.locator("#product-silver-american-eagle-1oz table");
    await table.getByRole("link", { name: /Dealer/ }).click();
    await page.waitForURL(/sort=dealer/);
    const names = await page.locator("#product-silver-american-eagle-1oz tbody th > span:first-child").allInnerTexts();
    assert.deepEqual(names, [...names].sort((a, b) => a.toLowerCase().localeCompare(b.toLowerCase())), "sorted by dealer");
    assert.equal(await page.locator("#product-silver-american-eagle-1oz th[aria-sort=ascending]").innerText().then((s) => s.trim().startsWith("DEALER") || s.trim().startsWith("Dealer")), true);
    await page.getByRole("navigation", { name: "Weight" }).getByRole("link", { name: "10 oz" }).click();
    await page.waitForURL(/weight=10/);
    assert.deepEqual(await page.locator("#dealer-results > section h2 a").allInnerTexts(), ["Silver Bar 10 oz"]);
    await page.getByRole("navigation", { name: "Metal" }).getByRole("link", { name: "Gold" }).click();
    await page.getByRole("navigation", { name: "Form" }).getByRole("link", { name: "Bars" }).click();
    await page.waitForURL(/form=bar/);
    const gold = await page.locator("#dealer-results > section h2 a").allInnerTexts();
    assert.ok(gold.length === 4 && gold.every((s) => s.startsWith("Gold Bar")), gold.join(", "));
  });

  await step("premium history chart loads when opened", async () => {
    await page.goto(base + "/dealers?metal=silver&weight=1");
    const section = page.locator("#product-silver-american-eagle-1oz");
    await section.locator("summary", { hasText: "Premium history" }).click();
    await section.locator(".dealer-chart").waitFor();
    const paths = await section.locator(".dealer-chart svg path").count();
    assert.ok(paths >= 2, "chart lines drawn: " + (await section.locator(".dealer-chart").innerHTML()).slice(0, 600));
    assert.ok(await section.locator(".dealer-chart").innerText().then((s) => s.toUpperCase().includes("DEMO")), "chart labelled demo");
    await section.locator(".dealer-chart").scrollIntoViewIfNeeded();
    await page.screenshot({ path: `${shots}/dealers-chart-1280.png`, fullPage: false });
  });

  await step("buy goes through the logged redirect to the catalogue URL only", async () => {
    const href = await page.locator("#product-silver-american-eagle-1oz tbody tr").first().getByRole("link", { name: "Buy at dealer" }).getAttribute("href");
    assert.match(href, /^\/go\/[a-z-]+\/silver-american-eagle-1oz$/);
    const res = await fetch(base + href, { redirect: "manual", headers: { Referer: base + "/dealers" } });
    assert.equal(res.status, 302);
    assert.match(res.headers.get("location"), /^https:\/\/(www\.)?[a-z]+\.com\/$/);
    for (const bad of ["/go/apmex/%2F%2Fevil.example", "/go/evil/silver-american-eagle-1oz", "/go/apmex/javascript:alert(1)"]) {
      const r = await fetch(base + bad, { redirect: "manual" });
      assert.equal(r.status, 404, bad);
      assert.equal(r.headers.get("location"), null);
    }
    const add = await page.locator("#product-silver-american-eagle-1oz tbody tr").first().getByRole("link", { name: "Add to holdings" }).getAttribute("href");
    const q = new URL(add, base).searchParams;
    assert.equal(q.get("product"), "silver-american-eagle-1oz");
    assert.match(q.get("price"), /^\d+\.\d{2}$/);
    assert.ok(q.get("dealer").length > 2);
  });

  for (const [width, scheme] of [[375, "light"], [375, "dark"], [1280, "dark"]]) {
    await step(`${width}px ${scheme}: no sideways scroll, screenshot`, async () => {
      const c = await browser.newContext({ viewport: { width, height: 900 }, colorScheme: scheme });
      await c.route((url) => !url.href.startsWith(base), (route) => route.abort());
      const p = await c.newPage();
      await p.goto(base + "/dealers?metal=silver&weight=1");
      const overflow = await p.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      assert.ok(overflow <= 0, `page overflows by ${overflow}px`);
      if (width === 375) {
        // On a phone the actions sit under the dealer's name.
        assert.ok(await p.locator("tbody tr").first().locator("th").getByRole("link", { name: "Buy at dealer" }).isVisible());
      }
      await p.screenshot({ path: `${shots}/dealers-${width}-${scheme}.png`, fullPage: false });
      await c.close();
    });
  }
  assert.deepEqual(errors, [], "console errors");
} finally {
  await browser.close();
}
