// Browser journey of the ledger, driven by playwright-core against Debian's Chromium. BASE_URL
// points at an offline server the Go test started on loopback; SHOTS is where screenshots go.
import { chromium } from "playwright-core";
import assert from "node:assert/strict";
import { mkdirSync } from "node:fs";

const base = process.env.BASE_URL;
const shots = process.env.SHOTS || "e2e/screenshots";
mkdirSync(shots, { recursive: true });
const email = "ledger-e2e@example.com";
const password = "correct horse battery";

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
  await ctx.route((url) => !url.href.startsWith(base), (route) => { console.log("blocked " + route.request().url()); return route.abort(); });
  const page = await ctx.newPage();
  const errors = [];
  page.on("console", (m) => { if (m.type() === "error") errors.push(m.text()); });
  let lotID = "";

  await step("sign up", async () => {
    await page.goto(base + "/signup");
    await page.fill("input[name=email]", email);
    await page.fill("input[name=password]", password);
    await page.click("form button[type=submit]");
    await page.waitForLoadState("networkidle");
  });

  await step("the picker fills metal, name and fine weight", async () => {
    await page.goto(base + "/holdings/new");
    await page.fill("#f-product-pick", "Silver Bar 1 kg");
    await page.dispatchEvent("#f-product-pick", "input");
    assert.equal(await page.inputValue("#f-weight"), "32.15075");
    assert.equal(await page.inputValue("#f-metal"), "silver");
    assert.equal(await page.inputValue("#f-product_name"), "Silver Bar 1 kg");
    // Junk silver by face value: $10 face of 90 % is 7.15 oz.
    await page.fill("#f-product-pick", "90% US Silver Coins ($1 face)");
    await page.dispatchEvent("#f-product-pick", "input");
    assert.ok(await page.locator("#f-face").isVisible(), "face value field shown");
    await page.fill("#f-face", "10");
    assert.equal(await page.inputValue("#f-weight"), "7.15");
    assert.equal(await page.inputValue("#f-quantity"), "1");
    // Back to a bar for the lot we sell from.
    await page.fill("#f-product-pick", "Silver Bar 10 oz");
    await page.dispatchEvent("#f-product-pick", "input");
    assert.equal(await page.inputValue("#f-weight"), "10");
    await page.fill("#f-quantity", "5");
    await page.fill("#f-purchase_price", "310.00");
    await page.fill("#f-purchase_date", "2025-05-05");
    await page.click("#holding-form button[type=submit]");
    await page.waitForURL(/\/holdings\?saved=1/);
    const lot = page.locator("li[id^=holding-]").first();
    lotID = (await lot.getAttribute("id")).replace("holding-", "");
    assert.match(await lot.innerText(), /5 units · 0 sold/);
  });

  await step("selling part of a lot leaves the rest on the ledger", async () => {
    await page.goto(base + "/holdings/" + lotID + "/sell");
    await page.fill("#f-quantity", "2");
    await page.fill("#f-price_per_unit", "330");
    await page.fill("#f-sold_on", "2025-09-01");
    await page.click("#sale-form button[type=submit]");
    await page.waitForURL(/\/holdings\?sold=1/);
    const text = await page.locator("#holding-" + lotID).innerText();
    assert.match(text, /5 units · 2 sold/);
    assert.match(text, /3 units/);
    assert.match(text, /\$930\.00/, "remaining cost basis");
    assert.ok(await page.locator("#holding-" + lotID + " button[disabled]").count() === 1, "delete locked while sales exist");
    // Some gold for the dashboard's sake.
    await page.goto(base + "/holdings/new");
    await page.fill("#f-product-pick", "American Gold Eagle 1 oz");
    await page.dispatchEvent("#f-product-pick", "input");
    await page.fill("#f-quantity", "2");
    await page.fill("#f-purchase_price", "2,650.00");
    await page.fill("#f-purchase_date", "2025-01-10");
    await page.click("#holding-form button[type=submit]");
    await page.waitForURL(/\/holdings/);
  });

  const signedIn = ["/", "/holdings", "/holdings?metal=silver", "/holdings/new", "/holdings/sales", "/holdings/" + lotID + "/sell", "/holdings/" + lotID + "/edit",
    "/markets", "/calculators/junk-silver", "/calculators/what-if", "/signal", "/intel", "/vault", "/dealers",
    "/portfolio/import", "/portfolio/scan", "/advisor", "/brief", "/alerts", "/settings/account", "/settings/developer", "/settings/billing"];

  await step("no signed-in page scrolls sideways at 375 px", async () => {
    const phone = await browser.newContext({ viewport: { width: 375, height: 812 }, storageState: await ctx.storageState() });
    const p = await phone.newPage();
    const wide = [];
    for (const path of signedIn) {
      await p.goto(base + path);
      await p.waitForLoadState("networkidle");
      const [sw, iw] = await p.evaluate(() => [document.documentElement.scrollWidth, window.innerWidth]);
      if (sw > iw) wide.push(`${path}: scrollWidth ${sw} > innerWidth ${iw}`);
    }
    // On a phone the dashboard leads with the stack's total and P/L, the price board after.
    await p.goto(base + "/");
    const [summaryTop, tickerTop] = await p.evaluate(() => ["#dashboard-summary", "#price-ticker"].map((q) => document.querySelector(q).getBoundingClientRect().top));
    assert.ok(summaryTop < tickerTop, `total and P/L (top ${summaryTop}) should come before the prices (top ${tickerTop}) at 375 px`);
    for (const path of ["/", "/holdings", "/calculators/what-if"]) {
      await p.goto(base + path);
      await p.waitForLoadState("networkidle");
      await p.screenshot({ path: `${shots}/ledger${path === "/" ? "-home" : path.replaceAll("/", "-")}-375.png`, fullPage: true });
    }
    await phone.close();
    assert.deepEqual(wide, [], "pages wider than the phone");
  });

  await step("the signed-in navigation fits one line at 1024–1536 px", async () => {
    for (const width of [1024, 1280, 1536]) {
      await page.setViewportSize({ width, height: 900 });
      await page.goto(base + "/holdings");
      // The phone menu's list is hidden at these widths: only the links shown are measured.
      const tops = await page.$$eval("header nav ul > li", (lis) => lis.filter((li) => li.getClientRects().length > 0).map((li) => Math.round(li.getBoundingClientRect().top)));
      assert.equal(new Set(tops).size, 1, `nav on one line at ${width}px: ${tops}`);
      // The logo, the links and the member's controls (bell, badge, sign out) share that line.
      const rows = await page.$$eval("header nav > *", (els) => els.filter((el) => el.getClientRects().length > 0).map((el) => { const r = el.getBoundingClientRect(); return [Math.round(r.top), Math.round(r.bottom)]; }));
      const top = Math.max(...rows.map((r) => r[0])), bottom = Math.min(...rows.map((r) => r[1]));
      assert.ok(top < bottom, `header parts on separate lines at ${width}px: ${JSON.stringify(rows)}`);
      // …and stay inside the page's content width (no sticking out past the main column).
      const spill = await page.$eval("header nav", (nav) => {
        const box = nav.getBoundingClientRect(), pad = parseFloat(getComputedStyle(nav).paddingRight);
        return Math.round(Math.max(...[...nav.children].filter((el) => el.getClientRects().length > 0).map((el) => el.getBoundingClientRect().right)) - (box.right - pad));
      });
      assert.ok(spill <= 0, `header spills ${spill}px past the content column at ${width}px`);
    }
    await page.setViewportSize({ width: 1280, height: 900 });
    for (const path of ["/", "/holdings", "/calculators/what-if"]) {
      await page.goto(base + path);
      await page.waitForLoadState("networkidle");
      await page.screenshot({ path: `${shots}/ledger${path === "/" ? "-home" : path.replaceAll("/", "-")}-1280.png`, fullPage: true });
    }
  });

  await step("the value chart labels cost basis and shows a crosshair on hover", async () => {
    await page.goto(base + "/");
    await page.waitForLoadState("networkidle");
    const svg = page.locator("svg.chart-crosshair").first();
    await svg.scrollIntoViewIfNeeded();
    assert.match(await svg.innerHTML(), /Cost basis \$/, "cost-basis line labelled");
    assert.equal(await svg.locator("title").count(), 1, "no title tooltips besides the chart's own title");
    const ticks = await svg.locator("line.stroke-slate-200").count();
    assert.ok(ticks >= 4 && ticks <= 6, `y ticks: ${ticks}`);
    const box = await svg.boundingBox();
    await page.mouse.move(box.x + box.width * 0.6, box.y + box.height * 0.5);
    assert.equal(await svg.locator(".crosshair").getAttribute("visibility"), "visible");
    assert.match(await svg.locator(".crosshair text").textContent(), /\d{4}.*\$/, "date and value");
  });

  await step("delete the account after the export offer", async () => {
    await page.goto(base + "/settings/account");
    assert.ok(await page.locator("#download-data").isVisible(), "download my data offered");
    await page.fill("#f-delete_password", password);
    await page.fill("#f-confirm", "delete my account");
    await page.click("#delete-form button[type=submit]");
    await page.waitForURL((u) => !u.pathname.startsWith("/settings"));
    await page.goto(base + "/settings/account");
    assert.match(page.url(), /\/login/, "signed out after deletion");
  });

  assert.deepEqual(errors, [], "no console errors");
} finally {
  await browser.close();
}
