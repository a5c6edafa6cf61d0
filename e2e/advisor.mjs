// Advisor journey, driven by playwright-core against Debian's Chromium: a member records a
// holding, writes today's brief from the dashboard's first card, and asks the advisor; the
// reply streams in over SSE (a fake model on loopback) and ends with the checked reply and
// its facts. BASE_URL is the server the Go test started; SHOTS is where screenshots go.
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
const consoleErrors = [];

try {
  const ctx = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await ctx.newPage();
  page.on("console", (m) => { if (m.type() === "error") consoleErrors.push(m.text()); });
  page.on("pageerror", (e) => consoleErrors.push(e.message));

  await step("sign up and record 10 oz of gold", async () => {
    await page.goto(base + "/signup");
    await page.getByLabel("Email").fill(`adv${Date.now()}@example.com`);
    await page.getByLabel("Password").fill("correct horse battery");
    await page.getByRole("button", { name: "Create account" }).click();
    await page.waitForURL(base + "/");
    await page.goto(base + "/holdings/new");
    await page.locator("#f-metal").selectOption("gold");
    await page.getByLabel("Quantity (units)").fill("10");
    await page.getByLabel("Fine weight per unit", { exact: true }).fill("1");
    await page.getByLabel("Price per unit", { exact: true }).fill("2000");
    await page.getByRole("button", { name: "Save holding" }).click();
    await page.waitForURL((u) => !u.pathname.endsWith("/new"));
  });

  await step("the dashboard's first card writes today's brief", async () => {
    await page.goto(base + "/");
    const card = page.locator("#brief-card");
    await card.getByRole("button", { name: "Generate today's brief" }).waitFor();
    await card.getByRole("button", { name: "Generate today's brief" }).click();
    await page.waitForURL(/\/brief\?generated=1$/);
    const headline = await page.locator("article h2").first().innerText();
    assert.match(headline, /^Your stack: \$[\d,]+\.\d\d/);
    const body = await page.locator("article").first().innerText();
    assert.match(body, /last known price from \d{1,2} [A-Z][a-z]{2} \d{4}, not live/, "offline prices name their date");
    await page.screenshot({ path: `${shots}/brief-1280-light.png`, fullPage: true });
    await page.goto(base + "/");
    await page.locator("#brief-card").getByText("Read the whole brief").waitFor();
    const first = await page.evaluate(() => {
      const card = document.getElementById("brief-card");
      const ticker = document.getElementById("price-ticker");
      return !!(card && ticker && (card.compareDocumentPosition(ticker) & Node.DOCUMENT_POSITION_FOLLOWING));
    });
    assert.equal(first, true, "the brief card comes before the dashboard's other cards");
    await page.screenshot({ path: `${shots}/dashboard-brief-1280-light.png` });
  });

  await step("the advisor's reply streams in and ends with its facts", async () => {
    await page.goto(base + "/advisor");
    await page.getByLabel("Your question").fill("What is my stack worth?");
    await page.getByRole("button", { name: "Ask" }).click();
    const reply = page.locator('#advisor-log [data-role="assistant"]').last();
    await reply.getByText("Facts used").waitFor({ timeout: 20000 });
    const text = await reply.innerText();
    assert.match(text, /Your stack is worth \$[\d,]+\.\d\d at spot/);
    assert.match(text, /Written by fake-model/);
    assert.match(text, /Stack value/);
    assert.equal(await page.getByLabel("Your question").inputValue(), "", "the box is cleared");
  });

  await step("a second question continues the conversation", async () => {
    await page.getByLabel("Your question").fill("and the gold silver ratio?");
    await page.getByRole("button", { name: "Ask" }).click();
    await page.locator('#advisor-log [data-role="assistant"]').nth(1).getByText("Facts used").waitFor({ timeout: 20000 });
    await page.reload();
    assert.equal(await page.locator("#advisor-conversations li").count(), 1);
    await page.locator("#advisor-conversations a").first().click();
    assert.equal(await page.locator('#advisor-log [data-role="assistant"]').count(), 2);
    await page.screenshot({ path: `${shots}/advisor-1280-light.png`, fullPage: true });
  });

  await step("the chat at 375 px, dark", async () => {
    const small = await browser.newContext({ viewport: { width: 375, height: 800 }, colorScheme: "dark", storageState: await ctx.storageState() });
    const p = await small.newPage();
    await p.goto(page.url());
    await p.screenshot({ path: `${shots}/advisor-375-dark.png`, fullPage: true });
    const overflow = await p.evaluate(() => document.documentElement.scrollWidth > window.innerWidth + 1);
    assert.equal(overflow, false, "no horizontal scrolling at 375 px");
    await small.close();
  });

  assert.deepEqual(consoleErrors, [], "console errors");
} finally {
  await browser.close();
}
