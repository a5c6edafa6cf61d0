// Browser journey for Ounce, driven by playwright-core against Debian's Chromium.
// BASE_URL points at a server the Go test started on loopback; SHOTS is where screenshots go.
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
let failed = false;
const step = async (name, fn) => {
  try {
    await fn();
    console.log("ok   " + name);
  } catch (e) {
    failed = true;
    console.log("FAIL " + name + "\n" + (e.stack || e));
    throw e;
  }
};

try {
  const ctx = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await ctx.newPage();
  const cspErrors = [];
  // The 422 of the deliberate bad form is expected; anything else (CSP refusals above all) is not.
  page.on("console", (m) => { if (m.type() === "error" && !m.text().includes("status of 422")) cspErrors.push(m.text()); });
  const email = `stacker${Date.now()}@example.com`;

  await step("sign up", async () => {
    await page.goto(base + "/signup");
    await page.getByLabel("Email").fill(email);
    await page.getByLabel("Password").fill("correct horse battery");
    await page.getByRole("button", { name: "Create account" }).click();
    await page.waitForURL(base + "/");
    assert.ok((await page.content()).includes(email), "signed-in email shown");
    await page.screenshot({ path: `${shots}/01-home.png`, fullPage: true });
  });

  let key = "";
  await step("create an API key on the developer page", async () => {
    await page.getByRole("link", { name: "Settings" }).click();
    await page.getByRole("link", { name: "Developer access" }).click();
    await page.getByLabel("Key name").fill("browser test");
    await page.getByRole("button", { name: "Create key" }).click();
    const input = page.locator("#new-key");
    await input.waitFor();
    key = await input.inputValue();
    assert.match(key, /^ounce_[0-9a-f]{64}$/);
    await page.screenshot({ path: `${shots}/02-developer.png`, fullPage: true });
  });

  await step("call /v1/holdings with the key", async () => {
    const res = await fetch(base + "/v1/holdings", { headers: { Authorization: "Bearer " + key } });
    assert.equal(res.status, 200);
    const body = await res.json();
    assert.equal(body.total, 0);
    const anon = await fetch(base + "/v1/holdings");
    assert.equal(anon.status, 401);
  });

  await step("inline errors on a bad holding", async () => {
    await page.goto(base + "/holdings/new");
    await page.getByLabel("Quantity (units)").fill("0");
    await page.getByLabel("Fine weight per unit").fill("abc");
    await page.getByRole("button", { name: "Save holding" }).click();
    await page.locator("#f-quantity-error").waitFor();
    assert.ok(await page.locator("#f-weight-error").isVisible());
    await page.screenshot({ path: `${shots}/03-form-errors.png`, fullPage: true });
  });

  await step("add a holding through the form and see it listed", async () => {
    await page.getByLabel("Metal").selectOption("silver");
    await page.getByLabel("Product", { exact: true }).fill("1 oz Silver Eagle");
    await page.getByLabel("Quantity (units)").fill("20");
    await page.getByLabel("Fine weight per unit", { exact: true }).fill("1");
    await page.getByLabel("Price per unit", { exact: true }).fill("32.50");
    await page.getByLabel("Tax and shipping (whole order)", { exact: true }).fill("12.40");
    await page.getByLabel("Purchase date").fill("2026-11-02");
    await page.getByRole("button", { name: "Save holding" }).click();
    await page.waitForURL(/\/holdings\?saved=1$/);
    const row = page.locator("#holdings-table li[id^=holding-]").first();
    await row.waitFor();
    const text = await row.innerText();
    assert.ok(text.includes("1 oz Silver Eagle") && text.includes("$662.40"), text);
    await page.screenshot({ path: `${shots}/04-holdings.png`, fullPage: true });
    const res = await fetch(base + "/v1/holdings", { headers: { Authorization: "Bearer " + key } });
    const body = await res.json();
    assert.equal(body.total, 1);
    assert.equal(body.holdings[0].total_cost, 662.4);
  });

  await step("narrow phone and dark mode render", async () => {
    const phone = await browser.newContext({ viewport: { width: 375, height: 812 }, colorScheme: "dark", storageState: await ctx.storageState() });
    const p = await phone.newPage();
    await p.goto(base + "/holdings");
    const overflow = await p.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    assert.ok(overflow <= 0, "page scrolls sideways at 375 px by " + overflow);
    await p.screenshot({ path: `${shots}/05-holdings-375-dark.png`, fullPage: true });
    await phone.close();
  });

  await step("delete with confirmation", async () => {
    page.once("dialog", (d) => d.accept());
    await page.getByRole("link", { name: /^Delete / }).click();
    await page.getByText("No holdings yet.").waitFor();
  });

  await step("no console errors (CSP violations included)", async () => {
    assert.deepEqual(cspErrors, []);
  });
} finally {
  await browser.close();
}
process.exit(failed ? 1 : 0);
