// Billing journey, driven by playwright-core against Debian's Chromium: a free member upgrades
// (the Upgrade button's HX-Redirect goes to Stripe Checkout, which is stood in for, never
// loaded), comes back on the success URL and sees Gold. Screenshots of /settings/billing at
// 375 and 1280 px, light and dark, go to SHOTS.
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

// shoot saves the billing page at both widths in both schemes, and checks the phone width
// does not scroll sideways.
const shoot = async (ctx, name, path) => {
  for (const [width, scheme] of [[1280, "light"], [1280, "dark"], [375, "light"], [375, "dark"]]) {
    const c = await browser.newContext({ viewport: { width, height: 900 }, colorScheme: scheme, storageState: await ctx.storageState() });
    const p = await c.newPage();
    await p.goto(base + path);
    const overflow = await p.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    assert.ok(overflow <= 0, `${path} scrolls sideways at ${width} px by ${overflow}`);
    await p.screenshot({ path: `${shots}/billing-${name}-${width}-${scheme}.png`, fullPage: true });
    await c.close();
  }
};

try {
  const ctx = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await ctx.newPage();
  const consoleErrors = [];
  // The 403 of the membership page is deliberate; anything else (CSP refusals above all) is not.
  page.on("console", (m) => { if (m.type() === "error" && !m.text().includes("status of 403")) consoleErrors.push(m.text()); });
  // Stripe's checkout page is never loaded: the browser's navigation there is answered here.
  let stripeURL = "";
  await ctx.route("https://checkout.stripe.com/**", (route) => {
    stripeURL = route.request().url();
    return route.fulfill({ status: 200, contentType: "text/html", body: "<!doctype html><title>Stripe Checkout (stand-in)</title><p>Stripe Checkout stand-in</p>" });
  });
  const email = `payer${Date.now()}@example.com`;

  await step("sign up: a free member on a server with Stripe", async () => {
    await page.goto(base + "/signup");
    await page.getByLabel("Email").fill(email);
    await page.getByLabel("Password").fill("correct horse battery");
    await page.getByRole("button", { name: "Create account" }).click();
    await page.waitForURL(base + "/");
    const res = await page.goto(base + "/holdings");
    assert.equal(res.status(), 403, "a free member meets the membership page");
    await page.getByRole("link", { name: "See Gold membership" }).click();
    await page.waitForURL(base + "/settings/billing");
  });

  await step("the billing page offers both plans at Stripe's prices", async () => {
    const status = await page.locator("#billing-status").innerText();
    assert.match(status, /Plan\s+Free/);
    const upgrade = await page.locator("#billing-upgrade").innerText();
    assert.ok(upgrade.includes("$20.00 per month") && upgrade.includes("$199.00 per year"), upgrade);
    await shoot(ctx, "free", "/settings/billing");
  });

  let sessionID = "";
  await step("Upgrade goes to the HX-Redirect target at Stripe", async () => {
    const answer = page.waitForResponse((r) => r.url() === base + "/settings/billing/checkout" && r.request().method() === "POST");
    await page.getByRole("button", { name: "Upgrade Monthly" }).click();
    const res = await answer;
    assert.equal(res.status(), 204);
    const target = res.headers()["hx-redirect"];
    assert.match(target, /^https:\/\/checkout\.stripe\.com\/c\/pay\/cs_[A-Za-z0-9_]+$/);
    await page.waitForURL(/^https:\/\/checkout\.stripe\.com\//);
    assert.equal(stripeURL, target, "the browser went where HX-Redirect said");
    sessionID = target.split("/").pop();
  });

  await step("Stripe's success URL verifies the session and shows Gold", async () => {
    await page.goto(base + "/settings/billing?session_id=" + sessionID);
    await page.getByText("Payment confirmed: welcome to Gold.").waitFor();
    const status = await page.locator("#billing-status").innerText();
    assert.match(status, /Gold · monthly/);
    assert.match(status, /Renews on/);
    assert.ok((await page.locator("header").innerText()).includes("Gold"), "header badge");
    const history = await page.locator("#billing-history").innerText();
    assert.ok(history.includes("Free → Gold") && history.includes(sessionID), history);
    assert.equal(await page.locator("#billing-upgrade").count(), 0, "no upgrade for a Gold member");
    await page.screenshot({ path: `${shots}/billing-success-1280-light.png`, fullPage: true });
    await shoot(ctx, "gold", "/settings/billing");
  });

  await step("a Gold page opens", async () => {
    const res = await page.goto(base + "/holdings");
    assert.equal(res.status(), 200);
  });

  await step("no console errors (CSP violations included)", async () => {
    assert.deepEqual(consoleErrors, []);
  });
} finally {
  await browser.close();
}
process.exit(failed ? 1 : 0);
